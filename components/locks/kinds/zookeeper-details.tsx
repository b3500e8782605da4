import { ExactTime } from "@/components/board/time-text";
import { Fact, OtherFacts } from "@/components/locks/kinds/detail-list";
import type { KindDetailsProps } from "@/components/locks/kinds/kind-details-props";
import { describeDetailValue, describeMissedElections, readZookeeperWaiters, zookeeperSequence } from "@/components/locks/kinds/kind-facts";
import { PATRONI_DETAILS, PatroniFacts } from "@/components/locks/kinds/patroni-facts";
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
  "system",
  "role",
  "holderData",
  "holderDataUnread",
  "standbys",
  "electionCount",
  "electionCountName",
  "electionsMissed",
  // A Patroni cluster's (the patroni system).
  "standbyMembers",
  ...PATRONI_DETAILS,
]);

const record = (value: unknown): Record<string, unknown> | null =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

/**
 * A ZooKeeper lock or election: the holder's node and session (its ephemeralOwner: a new session
 * of the same participant is another hold), the time its session has left when the server's
 * `dump` tells it (a dead holder keeps the lock until then), and the waiters with their sequences.
 * A node that is itself the lock (a system's leader: Kafka's controller, an HDFS NameNode) shows
 * what the system calls it, the holder's data in the system's words, its standbys (they race, no
 * queue) and the system's own count of elections.
 */
export function ZookeeperDetails({ details, waiters, expiresAt, lastReadAt, nowMs, isStale }: KindDetailsProps) {
  const isLeaderNode = details.recipe === "ephemeral-node";
  const holderNode = typeof details.holderNode === "string" ? details.holderNode : null;
  const sequence = holderNode === null ? null : zookeeperSequence(holderNode);
  const session = typeof details.holderSessionId === "string" ? details.holderSessionId : null;
  const queue = readZookeeperWaiters(waiters, details);
  const batonTimeout = typeof details.batonSessionTimeoutMs === "number" ? details.batonSessionTimeoutMs : null;
  const role = typeof details.role === "string" ? details.role : null;
  const holderData = record(details.holderData);
  const unread = typeof details.holderDataUnread === "string" ? details.holderDataUnread : null;
  const elections = typeof details.electionCount === "number" ? details.electionCount : null;
  const counter = typeof details.electionCountName === "string" ? details.electionCountName : "elections";
  const missed = describeMissedElections(details);
  return (
    <dl className="facts kind-details" aria-label="ZooKeeper details">
      {role === null ? null : <Fact label="System">{role}</Fact>}
      {details.system === "patroni" ? (
        <PatroniFacts details={details} standbys={details.standbyMembers} isHeld={details.lockNodeExists === true} heldBy="session" />
      ) : null}
      <Fact label="Recipe">
        {isLeaderNode ? "the node itself is the lock (held while it exists)" : typeof details.recipe === "string" ? details.recipe : "—"}
      </Fact>
      {isLeaderNode ? (
        <Fact label="Leader node">
          {details.lockNodeExists === true ? (
            <span className="mono">
              created {typeof details.holderNodeCreatedAt === "string" ? <ExactTime iso={details.holderNodeCreatedAt} /> : "—"}, zxid{" "}
              {describeDetailValue(details.holderNodeCzxid)}
            </span>
          ) : (
            <span className="muted">does not exist</span>
          )}
        </Fact>
      ) : (
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
      )}
      {holderData === null ? null : (
        <Fact label="The holder, as its data says">
          <span className="mono">
            {Object.entries(holderData)
              .map(([name, value]) => `${name}: ${describeDetailValue(value)}`)
              .join(", ")}
          </span>
        </Fact>
      )}
      {unread === null ? null : (
        <Fact label="Holder's data not read">
          <strong className="loud">{unread}</strong> <span className="muted">(named by its session)</span>
        </Fact>
      )}
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
      {elections === null && missed === null ? null : (
        <Fact label={`Elections (the system's ${counter})`}>
          {elections === null ? "—" : elections}
          {missed === null ? null : <strong className="loud"> {missed} at the last change</strong>}
        </Fact>
      )}
      {isLeaderNode ? (
        <Fact label="Standbys (they race for the node: no queue)">
          {waiters.length === 0 ? (
            <span className="muted">none</span>
          ) : (
            <ul className="waiters" aria-label="Standbys">
              {waiters.map((name) => (
                <li key={name}>{name}</li>
              ))}
            </ul>
          )}
        </Fact>
      ) : (
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
      )}
      {Array.isArray(details.otherChildren) && details.otherChildren.length > 0 ? (
        <Fact label="Other children (no contenders)">
          <span className="mono">{details.otherChildren.join(", ")}</span>
        </Fact>
      ) : null}
      <OtherFacts details={details} known={KNOWN} />
    </dl>
  );
}
