import { Fact, OtherFacts } from "@/components/locks/kinds/detail-list";
import type { KindDetailsProps } from "@/components/locks/kinds/kind-details-props";
import { describeDetailValue, describePatroniEnding, isEtcdLeaseUnrenewed } from "@/components/locks/kinds/kind-facts";
import { formatBytes } from "@/lib/board/format";
import { TtlLeft } from "@/components/locks/ttl-left";

const KNOWN: ReadonlySet<string> = new Set([
  "layout",
  "key",
  "leaseId",
  "createRevision",
  "modRevision",
  "leaseGrantedTtlS",
  "leaseTtlS",
  "revision",
  "waiters",
  // A Patroni cluster's (the etcd kind's patroni layout).
  "system",
  "role",
  "scope",
  "standbys",
  "lagBytes",
  "failover",
  "previousPrimary",
  "primary",
  "timeline",
  "xlogLocation",
]);

type EtcdWaiter = { name?: unknown; leaseId?: unknown; createRevision?: unknown };
type PatroniStandby = { name?: unknown; role?: unknown; state?: unknown; timeline?: unknown; isNoFailover?: unknown; isUnreadable?: unknown };

const record = (value: unknown): Record<string, unknown> | null =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

/** A Patroni cluster's own facts: the primary, its standbys with their lag, a pending switchover, how the last primary's hold ended. */
function PatroniFacts({ details }: { details: Record<string, unknown> }) {
  const standbys = Array.isArray(details.standbys) ? (details.standbys as PatroniStandby[]) : [];
  const lag = record(details.lagBytes) ?? {};
  const primary = record(details.primary);
  const failover = record(details.failover);
  const previous = record(details.previousPrimary);
  const previousWords = previous === null ? null : describePatroniEnding(previous, typeof previous.name === "string" ? previous.name : null);
  return (
    <>
      <Fact label="Primary">
        {typeof details.leaseId !== "string" ? (
          <span className="muted">none: no member holds the leader key</span>
        ) : primary === null ? (
          <span className="muted">its member key was not read</span>
        ) : (
          `${describeDetailValue(primary.role)}, ${describeDetailValue(primary.state)}, timeline ${describeDetailValue(details.timeline)}`
        )}
      </Fact>
      <Fact label="Standbys (in the order Patroni would promote them)">
        {standbys.length === 0 ? (
          <span className="muted">none</span>
        ) : (
          <ul className="waiters" aria-label="Patroni standbys">
            {standbys.map((standby) => {
              const name = String(standby.name ?? "?");
              const bytes = typeof lag[name] === "number" ? (lag[name] as number) : null;
              return (
                <li key={name}>
                  {name}: {describeDetailValue(standby.role)}, {describeDetailValue(standby.state)}, timeline {describeDetailValue(standby.timeline)}
                  {bytes === null ? ", lag unknown" : `, ${formatBytes(bytes)} behind`}
                  {standby.isNoFailover === true ? " (nofailover: never promoted)" : ""}
                  {standby.isUnreadable === true ? <strong className="loud"> (its member key could not be read)</strong> : null}
                </li>
              );
            })}
          </ul>
        )}
      </Fact>
      {failover === null ? null : (
        <Fact label="Switchover or failover asked for">
          {failover.leader ? `from ${describeDetailValue(failover.leader)} ` : ""}
          {failover.member ? `to ${describeDetailValue(failover.member)}` : "to the best standby"}
          {failover.scheduledAt ? `, scheduled at ${describeDetailValue(failover.scheduledAt)}` : ""}
        </Fact>
      )}
      {previous === null ? null : (
        <Fact label="Last primary's hold">
          {describeDetailValue(previous.name)}: {previousWords ?? describeDetailValue(previous.reason)}
        </Fact>
      )}
    </>
  );
}

/**
 * An etcd election or lock: the holder's key, its create and mod revisions, its lease and the
 * lease's TTL left, flagged when nobody renews it (the holder stopped without resigning: its key
 * stays until the lease runs out), and the waiters with their create revisions. A Patroni cluster
 * also shows its primary, its standbys with their lag, and how the last primary's hold ended.
 */
export function EtcdDetails({ details, expiresAt, lastReadAt, nowMs, isStale }: KindDetailsProps) {
  const isUnrenewed = isEtcdLeaseUnrenewed(details);
  const waiters = Array.isArray(details.waiters) ? (details.waiters as EtcdWaiter[]) : [];
  const hasHolder = typeof details.leaseId === "string";
  const isPatroni = details.layout === "patroni";
  return (
    <dl className="facts kind-details" aria-label="etcd details">
      {typeof details.role === "string" ? <Fact label="System">{details.role}</Fact> : null}
      {isPatroni ? <PatroniFacts details={details} /> : null}
      {isUnrenewed ? (
        <Fact label="Lease">
          <strong className="loud">Holder&apos;s lease still running after it stopped: nobody renews it, and its key stays until the lease runs out</strong>
        </Fact>
      ) : null}
      <Fact label="Key">{typeof details.key === "string" ? <span className="mono">{details.key}</span> : "—"}</Fact>
      <Fact label="Create revision">{describeDetailValue(details.createRevision)}</Fact>
      <Fact label="Mod revision">{describeDetailValue(details.modRevision)}</Fact>
      <Fact label="Lease id">{hasHolder ? <span className="mono">{String(details.leaseId)}</span> : "—"}</Fact>
      <Fact label="Lease left">
        {hasHolder ? <TtlLeft expiresAt={expiresAt} lastReadAt={lastReadAt} nowMs={nowMs} isStale={isStale} /> : "—"}
        {typeof details.leaseGrantedTtlS === "number" ? ` (granted ${details.leaseGrantedTtlS} s)` : ""}
      </Fact>
      <Fact label="Read at revision">{describeDetailValue(details.revision)}</Fact>
      {waiters.length > 0 ? (
        <Fact label="Waiters with revisions">
          <ol className="waiters" aria-label="etcd waiters in order">
            {waiters.map((waiter) => (
              <li key={`${describeDetailValue(waiter.leaseId)}@${describeDetailValue(waiter.createRevision)}`}>
                {String(waiter.name ?? "?")} (create revision {describeDetailValue(waiter.createRevision)}, lease{" "}
                <span className="mono">{describeDetailValue(waiter.leaseId)}</span>)
              </li>
            ))}
          </ol>
        </Fact>
      ) : null}
      <OtherFacts details={details} known={KNOWN} />
    </dl>
  );
}
