import { formatAgo, formatClock, formatExactTime, formatTenure, formatZonedTime } from "@/lib/board/format";

type Props = { iso: string; nowMs: number };

// Times are rendered in the reader's time zone, which the server does not know: the server's
// rendering of the text is replaced on hydration (hence suppressHydrationWarning), and the
// exact ISO time is always in dateTime and the title.

/** "14:02" (or "21 Nov 14:02"). */
export function ClockTime({ iso, nowMs }: Props) {
  return (
    <time dateTime={iso} title={iso} suppressHydrationWarning>
      {formatClock(iso, nowMs)}
    </time>
  );
}

/** "since 14:02, 3 h 12 m" */
export function TenureTime({ iso, nowMs }: Props) {
  return (
    <time dateTime={iso} title={iso} suppressHydrationWarning>
      {formatTenure(iso, nowMs)}
    </time>
  );
}

/** "3 m ago" */
export function AgoTime({ iso, nowMs }: Props) {
  return (
    <time dateTime={iso} title={iso} suppressHydrationWarning>
      {formatAgo(iso, nowMs)}
    </time>
  );
}

/** "2026-11-22 14:02:07.123" */
export function ExactTime({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={iso} suppressHydrationWarning>
      {formatExactTime(iso)}
    </time>
  );
}

/** "2026-11-22 14:02:07 CET": the full time and the reader's zone (alerts). */
export function ZonedTime({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={iso} suppressHydrationWarning>
      {formatZonedTime(iso)}
    </time>
  );
}
