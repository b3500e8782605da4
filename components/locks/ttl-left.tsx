import { formatTtlLeft } from "@/lib/board/lock-words";

/**
 * The TTL left, counted in the browser from the expiry and the last read, in neutral colour:
 * whether the lock expired while held is the health rule's to say (the card's health line), not a
 * countdown from a read seconds old.
 */
export function TtlLeft({ expiresAt, lastReadAt, nowMs, isStale }: { expiresAt: string | null; lastReadAt: string | null; nowMs: number; isStale: boolean }) {
  if (isStale) return <span className="last-known">unknown (stale)</span>;
  return (
    <span title={expiresAt ?? undefined} suppressHydrationWarning>
      {formatTtlLeft(expiresAt, lastReadAt, nowMs)}
    </span>
  );
}
