// The words for a predicted next holder that is not a name: short labels for the tables, the
// full reason for a tooltip. Client-safe.

import type { NextHolder } from "@/lib/poller/next-holder";

const LABELS: Partial<Record<NonNullable<NextHolder["reason"]>, string>> = {
  "no-owner-rule": "no rule",
  "no-queue": "no queue",
  "rule-disagrees-with-broker": "rule differs",
};

export function describeNextHolder(next: NextHolder): { label: string; title: string } {
  if (next.reason === null) {
    return next.holder === null
      ? { label: "nobody", title: "Nobody would be left to take over." }
      : { label: next.holder, title: `${next.holder} takes over if the holder leaves.` };
  }
  return { label: LABELS[next.reason] ?? "cannot tell", title: `Cannot be computed: ${next.detail ?? next.reason}` };
}

/**
 * A partitioned subscription's next holders in one cell: the distinct predicted names, or, when
 * no partition has one, the shared reason (or "nobody").
 */
export function summarizeNextHolders(nexts: NextHolder[]): { names: string[]; fallback: NextHolder | null } {
  const names = [...new Set(nexts.flatMap((n) => (n.reason === null && n.holder !== null ? [n.holder] : [])))].sort();
  if (names.length > 0) return { names, fallback: null };
  return { names, fallback: nexts.find((n) => n.reason !== null) ?? nexts[0] ?? null };
}
