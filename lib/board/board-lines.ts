// The board as the lines of a virtualized list (a subscription line, then its partitions when
// expanded), and which leaders changed between two refreshes. Client-safe and pure.

import type { LeaderRow, SubscriptionGroup } from "@/lib/board/board-types";

export type BoardLine =
  | { kind: "subscription"; key: string; group: SubscriptionGroup; isExpanded: boolean }
  | { kind: "partition"; key: string; group: SubscriptionGroup; row: LeaderRow };

/** A partition's key, stable across refreshes: cluster|topic|subscription|partition. */
export function partitionKey(group: SubscriptionGroup, row: LeaderRow): string {
  return `${group.key}|${row.partition}`;
}

/** Why a row is stale: its stale flag's evidence. */
export function staleReasonOf(row: LeaderRow): string | null {
  return row.staleSince === null ? null : (row.flags.find((f) => f.rule === "stale")?.detail ?? null);
}

/** A partitioned subscription can be expanded; a non-partitioned one is a single line. */
export function isExpandable(group: SubscriptionGroup): boolean {
  return group.isPartitioned;
}

export function flattenBoard(groups: readonly SubscriptionGroup[], expanded: ReadonlySet<string>): BoardLine[] {
  const lines: BoardLine[] = [];
  for (const group of groups) {
    const isExpanded = isExpandable(group) && expanded.has(group.key);
    lines.push({ kind: "subscription", key: group.key, group, isExpanded });
    if (isExpanded) for (const row of group.partitions) lines.push({ kind: "partition", key: partitionKey(group, row), group, row });
  }
  return lines;
}

/**
 * Keys of rows (and of their subscriptions) whose current holder differs from the previous
 * refresh. Stale rows are not compared: their holder is the last known, not a change.
 */
export function findChangedLeaders(previous: readonly SubscriptionGroup[] | undefined, next: readonly SubscriptionGroup[]): Set<string> {
  const changed = new Set<string>();
  if (!previous) return changed;
  const before = new Map<string, SubscriptionGroup>();
  for (const group of previous) before.set(group.key, group);
  for (const group of next) {
    const old = before.get(group.key);
    if (!old || old === group) continue; // unchanged groups keep their identity across refreshes
    for (const row of group.partitions) {
      const was = old.partitions.find((p) => p.partition === row.partition);
      if (!was || was.staleSince !== null || row.staleSince !== null) continue;
      if (was.holder !== row.holder) {
        changed.add(partitionKey(group, row));
        changed.add(group.key);
      }
    }
  }
  return changed;
}
