import Link from "next/link";

import { FlagDetails, HealthWord } from "@/components/board/health-flags";
import { AgoTime, TenureTime } from "@/components/board/time-text";
import { EndedFindings } from "@/components/locks/ended-findings";
import { LockKindDetails } from "@/components/locks/kinds/kind-details";
import { TtlLeft } from "@/components/locks/ttl-left";
import { formatDuration } from "@/lib/board/format";
import type { LockRow } from "@/lib/board/lock-types";
import { consumerHref, lockHref } from "@/lib/board/links";
import { shortenToken } from "@/lib/board/lock-words";
import { fullTtlMs, ttlTermOf } from "@/lib/board/ttl-terms";
import { lockDescriptionOf } from "@/lib/sources/kind-descriptions";

/** One lock now: holder and token, since when, TTL left, the queue in order, its layout, the kind's own details (one panel per kind), and health. */
export function LockNow({ lock, nowMs }: { lock: LockRow; nowMs: number }) {
  const isStale = lock.staleSince !== null;
  const ttl = ttlTermOf(lock.sourceKind, lock.details);
  const fullTtl = fullTtlMs(lock);
  return (
    <div className="lock-now">
      <h3 className="mono">
        {lock.key} <HealthWord health={lock.health} />
      </h3>
      <FlagDetails flags={lock.flags} nowMs={nowMs} />
      <EndedFindings findings={lock.ended} />
      <dl className="facts" aria-label={`Lock ${lock.key} now`}>
        <dt>Holder</dt>
        <dd>
          {isStale ? (
            <span className="last-known">last known: {lock.holder ?? "free"}</span>
          ) : lock.holder === null ? (
            lock.isSplit ? (
              <strong className="loud">Split: no majority</strong>
            ) : lock.isMustBeHeld ? (
              <strong className="loud">No holder</strong>
            ) : (
              <span className="muted">free</span>
            )
          ) : (
            <Link prefetch={false} href={consumerHref(lock.holder)}>
              {lock.holder}
            </Link>
          )}
        </dd>
        <dt>Token</dt>
        <dd className="mono" title={lock.holderToken ?? undefined}>
          {shortenToken(lock.holderToken)}
        </dd>
        <dt>Tenure</dt>
        <dd>{lock.holderSince && !isStale ? <TenureTime iso={lock.holderSince} nowMs={nowMs} /> : "—"}</dd>
        {/* One term per kind (TTL, lease, session timeout), its full figure with its source, and what is left of it. */}
        <dt>{ttl.term}</dt>
        <dd>
          {fullTtl === null ? "—" : formatDuration(fullTtl)} <span className="muted small">({ttl.source})</span>
        </dd>
        <dt>{ttl.term} left</dt>
        <dd>
          {lock.holder === null && !isStale ? "—" : <TtlLeft expiresAt={lock.expiresAt} lastReadAt={lock.lastObservedAt} nowMs={nowMs} isStale={isStale} />}
        </dd>
        <dt>Waiters</dt>
        <dd>
          {lock.waiters.length === 0 ? (
            <span className="muted">none</span>
          ) : (
            <ol className="waiters" aria-label="Waiters in order">
              {lock.waiters.map((name) => (
                <li key={name}>
                  <Link prefetch={false} href={consumerHref(name)}>
                    {name}
                  </Link>
                </li>
              ))}
            </ol>
          )}
        </dd>
        <dt>Pattern</dt>
        <dd className="mono">
          <Link prefetch={false} href={lockHref({ cluster: lock.cluster, pattern: lock.pattern })} title={`Every lock of ${lock.pattern}`}>
            {lock.pattern}
          </Link>
          {lock.layout ? ` (${lock.layout} layout)` : ""}
          {lock.isMustBeHeld ? ", must always be held" : ""}
        </dd>
        <dt>Longest hold that ended</dt>
        <dd>{lock.stats.longestHoldMs > 0 ? formatDuration(lock.stats.longestHoldMs) : "none yet"}</dd>
        <dt>TTL near zero this hold</dt>
        <dd>{lock.stats.nearExpiryCount === 1 ? "once" : `${lock.stats.nearExpiryCount} times`}</dd>
        <dt>Last observed</dt>
        <dd>{lock.lastObservedAt ? <AgoTime iso={lock.lastObservedAt} nowMs={nowMs} /> : "never"}</dd>
      </dl>
      <h4>{lockDescriptionOf(lock.sourceKind).label} details</h4>
      <LockKindDetails
        kind={lock.sourceKind}
        details={lock.details}
        waiters={lock.waiters}
        expiresAt={lock.expiresAt}
        lastReadAt={lock.lastObservedAt}
        nowMs={nowMs}
        isStale={isStale}
      />
    </div>
  );
}
