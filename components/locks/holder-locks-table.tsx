import Link from "next/link";

import { TenureTime } from "@/components/board/time-text";
import { TtlLeft } from "@/components/locks/ttl-left";
import { lockHref } from "@/lib/board/links";
import type { HolderLock } from "@/lib/locks/list-holder-locks";

/** The locks a name holds or waits for: the lock, its role (holds it, or waits as number N), tenure and TTL left. */
export function HolderLocksTable({ locks, nowMs }: { locks: HolderLock[]; nowMs: number }) {
  return (
    <table className="data" aria-label="Locks held or awaited">
      <thead>
        <tr>
          <th scope="col">Lock</th>
          <th scope="col">Role</th>
          <th scope="col">Tenure</th>
          <th scope="col">TTL left</th>
          <th scope="col">Waiters</th>
        </tr>
      </thead>
      <tbody>
        {locks.map((lock) => {
          const isStale = lock.staleSince !== null;
          return (
            <tr key={`${lock.cluster}|${lock.key}`}>
              <td>
                <Link prefetch={false} href={lockHref(lock)} className="mono">
                  {lock.key}
                </Link>
                <div className="muted small">
                  {lock.cluster} · {lock.pattern}
                </div>
              </td>
              <td>
                {isStale ? (
                  <span className="last-known">last known: {lock.role === "holder" ? "holder" : "waiting"} (stale)</span>
                ) : lock.role === "holder" ? (
                  <strong>holds it</strong>
                ) : (
                  <span className="muted">
                    waits (number {lock.queuePosition ?? "?"} in the queue{lock.holder ? `, held by ${lock.holder}` : ""})
                  </span>
                )}
              </td>
              <td>{lock.role === "holder" && !isStale && lock.holderSince ? <TenureTime iso={lock.holderSince} nowMs={nowMs} /> : "—"}</td>
              <td>{lock.role === "holder" ? <TtlLeft expiresAt={lock.expiresAt} lastReadAt={lock.lastObservedAt} nowMs={nowMs} isStale={isStale} /> : "—"}</td>
              <td>{lock.waiterCount}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
