// The Key_Shared hash space as ring slices: who owns each stretch of hashes, where nobody does
// (a gap) and where two consumers do (an overlap). Pure and client-safe.

import type { HashRangeSplit } from "@/lib/poller/contract/hash-range-split";

export type RingSlice = {
  start: number;
  end: number;
  /** Hashes in the slice. */
  size: number;
  /** Owners: none = a gap, one = normal, more = an overlap. */
  owners: string[];
};

/**
 * Slices covering the whole space in order. Adjacent stretches with the same owners are one
 * slice. A 4.x split that starts at hash 1 leaves hash 0 to the first range's owner (the
 * broker's selector never yields 0), as findHashRangeProblems does.
 */
export function buildHashRing(split: HashRangeSplit): RingSlice[] {
  type Event = { at: number; owner: string; delta: 1 | -1 };
  const events: Event[] = [];
  let minStart = Number.POSITIVE_INFINITY;
  for (const { consumer, ranges } of split.consumers) {
    for (const [start, end] of ranges) {
      events.push({ at: start, owner: consumer, delta: 1 }, { at: end + 1, owner: consumer, delta: -1 });
      minStart = Math.min(minStart, start);
    }
  }
  if (minStart === 1) {
    // Treat hash 0 as part of whatever starts at 1.
    for (const e of events) if (e.at === 1 && e.delta === 1) e.at = 0;
  }
  events.sort((a, b) => a.at - b.at || a.delta - b.delta);
  const active = new Map<string, number>();
  const slices: RingSlice[] = [];
  let cursor = 0;
  const flush = (until: number) => {
    const end = Math.min(until, split.space) - 1;
    if (end < cursor) return;
    const owners = [...active.keys()].sort();
    const last = slices[slices.length - 1];
    if (last && last.end === cursor - 1 && last.owners.join("\n") === owners.join("\n")) {
      last.end = end;
      last.size = last.end - last.start + 1;
    } else {
      slices.push({ start: cursor, end, size: end - cursor + 1, owners });
    }
    cursor = end + 1;
  };
  for (const event of events) {
    if (event.at > cursor) flush(event.at);
    const count = (active.get(event.owner) ?? 0) + event.delta;
    if (count <= 0) active.delete(event.owner);
    else active.set(event.owner, count);
  }
  flush(split.space);
  return slices;
}
