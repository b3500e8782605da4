import Link from "next/link";

import { FlagList } from "@/components/board/health-flags";
import { NextHolderCell } from "@/components/board/next-holder-cell";
import { TenureTime } from "@/components/board/time-text";
import { LockKindCell } from "@/components/locks/kinds/kind-details";
import { LockLastChangeText } from "@/components/locks/lock-last-change";
import { TtlLeft } from "@/components/locks/ttl-left";
import type { LockRow } from "@/lib/board/lock-types";
import { ttlTermOf } from "@/lib/board/ttl-terms";

type Props = {
  locks: LockRow[];
  nowMs: number;
  /** A lock's page, or (with a pattern) the page of every lock of that pattern. */
  lockHref: (ref: { cluster: string; key?: string | null; pattern?: string | null }) => string;
  consumerHref: (name: string) => string;
};

function Holder({ lock, consumerHref }: { lock: LockRow; consumerHref: (name: string) => string }) {
  if (lock.staleSince !== null) return <span className="last-known">last known: {lock.holder ?? "free"}</span>;
  if (lock.isSplit) return <strong className="loud">Split: no majority</strong>;
  if (lock.holder === null) return lock.isMustBeHeld ? <strong className="loud">No holder</strong> : <span className="muted">free</span>;
  return (
    <Link prefetch={false} href={consumerHref(lock.holder)}>
      {lock.holder}
    </Link>
  );
}

/** Every lock in one table: who holds it, since when, the TTL left, the queue, the last change, health. */
export function LocksTable({ locks, nowMs, lockHref, consumerHref }: Props) {
  return (
    <table className="data locks-table" aria-label="Locks">
      <thead>
        <tr>
          <th scope="col">Lock</th>
          <th scope="col">Holder</th>
          <th scope="col">Tenure</th>
          <th
            scope="col"
            title="What is left of the hold unless renewed: the key's TTL (Redis), the lease (etcd, DynamoDB, Kubernetes) or the session (ZooKeeper)"
          >
            Time left
          </th>
          <th scope="col">Waiters</th>
          <th scope="col">Next</th>
          <th scope="col">Details</th>
          <th scope="col">Last change</th>
          <th scope="col">Health</th>
        </tr>
      </thead>
      <tbody>
        {locks.map((lock) => {
          const isStale = lock.staleSince !== null;
          return (
            <tr key={lock.id} data-health={lock.health}>
              {/* The cluster and the pattern under the key: eleven columns did not fit 1280 px. */}
              <th scope="row">
                <Link prefetch={false} className="mono" href={lockHref({ cluster: lock.cluster, key: lock.key })}>
                  {lock.key}
                </Link>
                <div className="muted small">
                  {lock.cluster}
                  {lock.pattern !== lock.key ? (
                    <>
                      {" · "}
                      <Link
                        prefetch={false}
                        className="mono"
                        href={lockHref({ cluster: lock.cluster, pattern: lock.pattern })}
                        title={`Every lock of ${lock.pattern}`}
                      >
                        {lock.pattern}
                      </Link>
                    </>
                  ) : null}
                </div>
              </th>
              <td>
                <Holder lock={lock} consumerHref={consumerHref} />
              </td>
              <td>{!isStale && lock.holder !== null && lock.holderSince ? <TenureTime iso={lock.holderSince} nowMs={nowMs} /> : "—"}</td>
              <td title={`${ttlTermOf(lock.sourceKind, lock.details).term} left`}>
                {lock.holder === null && !isStale ? (
                  "—"
                ) : (
                  <TtlLeft expiresAt={lock.expiresAt} lastReadAt={lock.lastObservedAt} nowMs={nowMs} isStale={isStale} />
                )}
              </td>
              <td>
                {isStale ? (
                  "—"
                ) : lock.waiters.length === 0 ? (
                  <span className="muted">none</span>
                ) : (
                  `${lock.waiters.length}: ${lock.waiters.slice(0, 3).join(", ")}${lock.waiters.length > 3 ? "…" : ""}`
                )}
              </td>
              <td>{isStale ? "—" : <NextHolderCell next={lock.next} />}</td>
              <td>{isStale ? "—" : <LockKindCell kind={lock.sourceKind} details={lock.details} />}</td>
              <td>
                <LockLastChangeText change={lock.lastChange} nowMs={nowMs} />
              </td>
              <td>
                <FlagList flags={lock.flags} nowMs={nowMs} max={3} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
