"use client";

import { useId, useMemo, useState } from "react";

import type { SubscriptionGroup } from "@/lib/board/board-types";
import { previewJoin, suggestConsumerName } from "@/lib/board/preview-join";

/** "What if a consumer joins": the partitions that change hands with one more consumer, by the broker's Failover rule. */
export function JoinPreview({ group }: { group: SubscriptionGroup }) {
  const suggested = useMemo(() => suggestConsumerName(group.consumers), [group.consumers]);
  const [name, setName] = useState(suggested);
  const inputId = useId();
  const preview = previewJoin(
    {
      topic: group.topic,
      subscriptionType: group.subscriptionType,
      isPartitioned: group.isPartitioned,
      partitions: group.partitions.map((p) => p.partition),
      consumers: group.consumers,
    },
    name,
  );
  return (
    <section className="panel" aria-label="What if a consumer joins">
      <h2>What if a consumer joins</h2>
      <div className="page-actions">
        <label htmlFor={inputId}>New consumer&apos;s name</label>
        <input id={inputId} type="text" value={name} onChange={(event) => setName(event.target.value)} spellCheck={false} />
      </div>
      {!preview.ok ? (
        <p className="muted" role="status">
          {preview.detail}
        </p>
      ) : (
        <>
          <p role="status">
            From {group.consumers.length} to {preview.consumerCount} consumers:{" "}
            {preview.moves.length === 0
              ? "no partition changes hands."
              : `${preview.moves.length} of ${preview.partitionCount} ${preview.partitionCount === 1 ? "partition changes" : "partitions change"} hands.`}
          </p>
          {preview.moves.length > 0 ? (
            <table className="data" aria-label="Partitions that change hands">
              <thead>
                <tr>
                  <th scope="col">Partition</th>
                  <th scope="col">From</th>
                  <th scope="col">To</th>
                </tr>
              </thead>
              <tbody>
                {preview.moves.map((move) => (
                  <tr key={move.topic}>
                    <th scope="row">{move.partitionIndex < 0 ? "(not partitioned)" : `Partition ${move.partitionIndex}`}</th>
                    <td>{move.from ?? "nobody"}</td>
                    <td>{move.to ?? "nobody"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
          <p className="chart-note">Computed by the broker&apos;s rule with every consumer at the default priority level; nothing is sent to the broker.</p>
        </>
      )}
    </section>
  );
}
