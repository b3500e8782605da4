import { formatTtlLeft } from "@/lib/board/lock-words";

/** The TTL left, counted in the browser from the expiry; loud once it has passed. */
export function TtlLeft({ expiresAt, nowMs, isStale }: { expiresAt: string | null; nowMs: number; isStale: boolean }) {
  if (isStale) return <span className="last-known">unknown (stale)</span>;
  const isPast = expiresAt !== null && Date.parse(expiresAt) < nowMs;
  return (
    <span className={isPast ? "loud" : undefined} title={expiresAt ?? undefined} suppressHydrationWarning>
      {formatTtlLeft(expiresAt, nowMs)}
    </span>
  );
}
