import { Fact, OtherFacts } from "@/components/locks/kinds/detail-list";
import type { KindDetailsProps } from "@/components/locks/kinds/kind-details-props";
import { describeDetailValue, isEtcdLeaseUnrenewed } from "@/components/locks/kinds/kind-facts";
import { PATRONI_DETAILS, PatroniFacts } from "@/components/locks/kinds/patroni-facts";
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
  "standbys",
  ...PATRONI_DETAILS,
]);

type EtcdWaiter = { name?: unknown; leaseId?: unknown; createRevision?: unknown };
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
      {isPatroni ? <PatroniFacts details={details} standbys={details.standbys} isHeld={hasHolder} heldBy="lease" /> : null}
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
