import { Fact, OtherFacts } from "@/components/locks/kinds/detail-list";
import type { KindDetailsProps } from "@/components/locks/kinds/kind-details-props";
import { readZookeeperWaiters, zookeeperSequence } from "@/components/locks/kinds/kind-facts";
import { TtlLeft } from "@/components/locks/ttl-left";
import { formatDuration } from "@/lib/board/format";

const KNOWN: ReadonlySet<string> = new Set([
  "recipe",
  "holderNode",
  "holderSessionId",
  "sessionExpiry",
  "waiterNodes",
  "batonSessionTimeoutMs",
  "lockNodeExists",
  "contenderDir",
  "holderNodeCreatedAt",
  "holderNodeCzxid",
  "otherChildren",
]);

/**
 * A ZooKeeper lock or election: the holder's node and session (its ephemeralOwner: a new session
 * of the same participant is another hold), the time its session has left when the server's
 * `dump` tells it (a dead holder keeps the lock until then), and the waiters with their sequences.
 */
export function ZookeeperDetails({ details, waiters, expiresAt, lastReadAt, nowMs, isStale }: KindDetailsProps) {
  const holderNode = typeof details.holderNode === "string" ? details.holderNode : null;
  const sequence = holderNode === null ? null : zookeeperSequence(holderNode);
  const session = typeof details.holderSessionId === "string" ? details.holderSessionId : null;
  const queue = readZookeeperWaiters(waiters, details);
  const batonTimeout = typeof details.batonSessionTimeoutMs === "number" ? details.batonSessionTimeoutMs : null;
  return (
    <dl className="facts kind-details" aria-label="ZooKeeper details">
      <Fact label="Recipe">{typeof details.recipe === "string" ? details.recipe : "—"}</Fact>
      <Fact label="Holder node">
        {holderNode === null ? (
          "—"
        ) : (
          <span className="mono">
            {holderNode}
            {sequence === null ? "" : ` (sequence ${sequence})`}
          </span>
        )}
      </Fact>
      <Fact label="Holder session">{session === null ? "—" : <span className="mono">{session}</span>}</Fact>
      <Fact label="Session time left">
        {session === null ? (
          "—"
        ) : details.sessionExpiry === "server dump" ? (
          <TtlLeft expiresAt={expiresAt} lastReadAt={lastReadAt} nowMs={nowMs} isStale={isStale} />
        ) : (
          <span className="muted">{String(details.sessionExpiry ?? "unknown")}</span>
        )}
      </Fact>
      {batonTimeout === null ? null : <Fact label="Session timeout (Baton's, as negotiated)">{formatDuration(batonTimeout)}</Fact>}
      <Fact label="Waiters with sequences">
        {queue.length === 0 ? (
          <span className="muted">none</span>
        ) : (
          <ol className="waiters" aria-label="ZooKeeper waiters in order">
            {queue.map((waiter) => (
              <li key={waiter.node ?? waiter.name}>
                {waiter.name}
                {waiter.sequence === null ? "" : ` (sequence ${waiter.sequence}`}
                {waiter.sequence !== null && waiter.session ? `, session ${waiter.session})` : waiter.sequence !== null ? ")" : ""}
              </li>
            ))}
          </ol>
        )}
      </Fact>
      {Array.isArray(details.otherChildren) && details.otherChildren.length > 0 ? (
        <Fact label="Other children (no contenders)">
          <span className="mono">{details.otherChildren.join(", ")}</span>
        </Fact>
      ) : null}
      <OtherFacts details={details} known={KNOWN} />
    </dl>
  );
}
