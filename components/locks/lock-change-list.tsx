"use client";

import Link from "next/link";

import { ExactTime } from "@/components/board/time-text";
import { describeKindChange } from "@/components/locks/kinds/kind-facts";
import { PredictionText } from "@/components/timeline/prediction-text";
import { consumerHref, lockHref } from "@/lib/board/links";
import { describeLockChange, ENDING_WORDS } from "@/lib/board/lock-words";
import type { LockChangeEntry } from "@/lib/locks/list-lock-changes";

function Holder({ name }: { name: string | null }) {
  return name === null ? (
    <span className="muted">nobody</span>
  ) : (
    <Link prefetch={false} href={consumerHref(name)}>
      {name}
    </Link>
  );
}

/**
 * A lock's changes in words, with exact times: when it was first seen, and the interval it
 * happened in; and what the change did to the kind's own details (a ZooKeeper session, etcd
 * revisions and lease) where the stored change has them; and whether it went as Baton predicted.
 */
export function LockChangeList({
  changes,
  cluster,
  showKey,
  caption,
  sourceKind,
}: {
  changes: LockChangeEntry[];
  cluster: string;
  showKey: boolean;
  caption: string;
  sourceKind: string | null;
}) {
  return (
    <table className="data change-list">
      <caption className="sr-only">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Seen at</th>
          {showKey ? <th scope="col">Lock</th> : null}
          <th scope="col">What happened</th>
          <th scope="col">Ending</th>
          <th scope="col">From</th>
          <th scope="col">To</th>
          <th scope="col">Prediction</th>
          <th scope="col">Happened after</th>
          <th scope="col">Details</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((change) => {
          const kindWords = describeKindChange(sourceKind, change);
          return (
            <tr key={change.id} data-kind={change.kind} data-ending={change.ending ?? undefined}>
              <td className="mono nowrap">
                <ExactTime iso={change.newSeenAt} />
              </td>
              {showKey ? (
                <td className="mono">
                  <Link prefetch={false} href={lockHref({ cluster, key: change.key })}>
                    {change.key}
                  </Link>
                </td>
              ) : null}
              <td suppressHydrationWarning>{describeLockChange(change)}</td>
              <td>
                {change.ending ? (
                  <span className={change.ending === "EXPIRED" ? "loud" : undefined}>{ENDING_WORDS[change.ending]}</span>
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
              <td className="nowrap">
                <Holder name={change.fromHolder} />
              </td>
              <td className="nowrap">
                <Holder name={change.toHolder} />
              </td>
              <td className="nowrap">
                <PredictionText change={change} />
              </td>
              <td className="mono nowrap">{change.oldSeenAt ? <ExactTime iso={change.oldSeenAt} /> : <span className="muted">—</span>}</td>
              <td className="small">
                {kindWords === null ? (
                  <span className="muted">—</span>
                ) : kindWords.isLoud ? (
                  <strong className="loud">{kindWords.words}</strong>
                ) : (
                  kindWords.words
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
