import Link from "next/link";

import { ExactTime } from "@/components/board/time-text";
import { PredictionText } from "@/components/timeline/prediction-text";
import { consumerHref, subscriptionHref } from "@/lib/board/links";
import type { ChangeEntry } from "@/lib/subscriptions/list-subscription-changes";

const KIND_WORDS: Record<ChangeEntry["kind"], string> = {
  HOLDER_CHANGED: "Leader changed",
  HOLDER_LOST: "Leader lost",
  HOLDER_APPEARED: "Leader appeared",
  HIDDEN_FLAP: "Hidden flap",
  REPLAYED_FLAP: "Replayed flap",
  CONSUMERS_CHANGED: "Consumers changed",
  RANGES_MOVED: "Hash ranges moved",
};

const CAUSE_WORDS: Record<ChangeEntry["cause"], string> = { CLIENT: "client", BROKER: "broker (unload or restart)", UNKNOWN: "unknown (during a gap)" };

function Holder({ name }: { name: string | null }) {
  return name === null ? (
    <span className="muted">nobody</span>
  ) : (
    <Link prefetch={false} href={consumerHref(name)}>
      {name}
    </Link>
  );
}

function describeDetails(change: ChangeEntry): string {
  const d = change.details as {
    added?: string[];
    removed?: string[];
    reconnected?: string[];
    shareDelta?: Record<string, number>;
    via?: string[];
    isCertain?: boolean;
  };
  const parts: string[] = [];
  if (d.via?.length) parts.push(`${d.isCertain ? "handed" : "possibly handed"} to ${d.via.join(" or ")} and back while consumers joined and left`);
  if (d.added?.length) parts.push(`joined: ${d.added.join(", ")}`);
  if (d.removed?.length) parts.push(`left: ${d.removed.join(", ")}`);
  if (d.reconnected?.length) parts.push(`reconnected: ${d.reconnected.join(", ")}`);
  if (d.shareDelta) {
    const moved = Object.entries(d.shareDelta).filter(([, delta]) => Math.abs(delta) >= 0.0005);
    if (moved.length) parts.push(moved.map(([name, delta]) => `${name} ${delta > 0 ? "+" : ""}${(delta * 100).toFixed(1)}%`).join(", "));
  }
  return parts.join("; ");
}

export type ChangeListRow = ChangeEntry & { cluster?: string; topic?: string; subscription?: string };

/** The changes with exact times: when it was first seen, and the interval it happened in. */
export function ChangeList({ changes, showSubscription = false, caption }: { changes: ChangeListRow[]; showSubscription?: boolean; caption: string }) {
  return (
    <table className="data change-list">
      <caption className="sr-only">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Seen at</th>
          {showSubscription ? <th scope="col">Subscription</th> : null}
          <th scope="col">Partition</th>
          <th scope="col">Change</th>
          <th scope="col">From</th>
          <th scope="col">To</th>
          <th scope="col">Prediction</th>
          <th scope="col">Cause</th>
          <th scope="col">Happened after</th>
          <th scope="col">Details</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((change) => (
          <tr key={change.id} data-kind={change.kind}>
            <td className="mono nowrap">
              <ExactTime iso={change.newSeenAt} />
            </td>
            {showSubscription && change.cluster && change.topic && change.subscription ? (
              <td>
                <Link prefetch={false} href={subscriptionHref({ cluster: change.cluster, topic: change.topic, subscription: change.subscription })}>
                  {change.subscription}
                </Link>
                <div className="muted small">{change.topic.replace(/^persistent:\/\//, "")}</div>
              </td>
            ) : null}
            <td>{change.partition < 0 ? "—" : change.partition}</td>
            <td>
              <span className="change-kind" data-kind={change.kind}>
                {KIND_WORDS[change.kind]}
              </span>
            </td>
            <td className="nowrap">
              <Holder name={change.fromHolder} />
            </td>
            <td className="nowrap">
              <Holder name={change.toHolder} />
            </td>
            <td>
              <PredictionText change={change} />
            </td>
            <td>{CAUSE_WORDS[change.cause]}</td>
            <td className="mono nowrap">{change.oldSeenAt ? <ExactTime iso={change.oldSeenAt} /> : <span className="muted">—</span>}</td>
            <td className="small">{describeDetails(change) || <span className="muted">—</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
