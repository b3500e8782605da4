import "server-only";

import { sql } from "@/lib/db/sql";
import type { SqlQueries } from "@/lib/db/sql-db";
import type { DetectedChange } from "@/lib/poller/change";
import { digestHashRangeSplit } from "@/lib/poller/split-digest";
import type { ResourceState } from "@/lib/poller/contract/partition-state";

// The Key_Shared split history (key_shared_range_split): a row per split of a subscription
// partition with the interval it was in force. Written in the cycle's transaction, after the
// states (whose ids it needs).

type SplitInput = { resourceId: bigint; signature: string | null; split: string | null; seenAt: string; changedAfter: string | null };

/**
 * What each touched Key_Shared state says about its split: the split as last observed (null when
 * it has no ranges or is gone), when that was seen, and when the previous split was last seen
 * (the RANGES_MOVED change's oldSeenAt, when this cycle detected one).
 */
export function listSplitInputs(states: readonly ResourceState[], ids: ReadonlyMap<string, bigint>, changes: readonly DetectedChange[]): SplitInput[] {
  const movedAfter = new Map<string, string | null>();
  for (const change of changes) if (change.kind === "RANGES_MOVED") movedAfter.set(change.resourceKey, change.oldSeenAt);
  const inputs: SplitInput[] = [];
  for (const state of states) {
    const resourceId = ids.get(state.resourceKey);
    if (resourceId === undefined || (state.hashRanges === null && !movedAfter.has(state.resourceKey))) continue;
    const isGone = state.goneAt !== null;
    const seenAt = isGone ? state.goneAt : state.lastObservedAt;
    if (seenAt === null) continue;
    const split = isGone ? null : state.hashRanges;
    inputs.push({
      resourceId,
      signature: split === null ? null : digestHashRangeSplit(split),
      split: split === null ? null : JSON.stringify(split),
      seenAt,
      changedAfter: movedAfter.get(state.resourceKey) ?? null,
    });
  }
  return inputs;
}

/**
 * Closes each resource's current split when its signature differs from the observed one, and
 * opens the observed one. An unchanged split writes nothing (the partial index on valid_to is
 * null finds the current rows); a second write of the same split at the same instant is a no-op.
 */
export async function recordKeySharedSplits(
  tx: SqlQueries,
  clusterId: number,
  states: readonly ResourceState[],
  ids: ReadonlyMap<string, bigint>,
  changes: readonly DetectedChange[],
): Promise<number> {
  const inputs = listSplitInputs(states, ids, changes);
  if (inputs.length === 0) return 0;
  const col = <T>(pick: (i: SplitInput) => T) => inputs.map(pick);
  const [counts] = await tx.$queryRaw<{ opened: number }[]>(sql`
    with input as (
      select * from unnest(${col((i) => i.resourceId)}::bigint[], ${col((i) => i.signature)}::text[], ${col((i) => i.split)}::jsonb[],
        ${col((i) => i.seenAt)}::timestamptz[], ${col((i) => i.changedAfter)}::timestamptz[]) as u(resource_id, signature, split, seen_at, changed_after)
    ),
    current_split as (
      select s.id, s.resource_id, s.signature from key_shared_range_split s join input i on i.resource_id = s.resource_id where s.valid_to is null
    ),
    closed as (
      update key_shared_range_split s set valid_to = i.seen_at
      from input i join current_split c on c.resource_id = i.resource_id
      where s.id = c.id and c.signature is distinct from i.signature and i.seen_at > s.valid_from
      returning s.id
    ),
    opened as (
      insert into key_shared_range_split (cluster_id, resource_id, signature, split, changed_after, valid_from)
      select ${clusterId}, i.resource_id, i.signature, i.split, i.changed_after, i.seen_at
      from input i left join current_split c on c.resource_id = i.resource_id
      where i.split is not null and (c.id is null or c.signature <> i.signature)
      on conflict (resource_id, valid_from) do nothing
      returning id
    )
    select (select count(*)::int from opened) as opened, (select count(*)::int from closed) as closed`);
  return counts?.opened ?? 0;
}
