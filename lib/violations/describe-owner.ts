// A violation's key owner in plain words, for the drill-down. Client-safe and pure.

import type { ViolationExplanation } from "@/lib/violations/drilldown-types";
import { formatCount, formatDuration, formatInstant, formatOffset } from "@/lib/violations/format";
import type { OwnerChange, ViolationOwner } from "@/lib/violations/owner-types";

function partitionWords(partition: number): string {
  return partition < 0 ? "the topic" : `partition ${partition}`;
}

function rangeWords(range: [number, number]): string {
  return `${formatCount(range[0])}-${formatCount(range[1])}`;
}

/** "(consumer-c joined)", "(consumer-a left)", "(consumer-c joined, consumer-a left)", or "". */
function membershipWords(change: OwnerChange): string {
  const parts = [...change.joined.map((n) => `${n} joined`), ...change.left.map((n) => `${n} left`)];
  return parts.length === 0 ? "" : ` (${parts.join(", ")})`;
}

/** Who was inside: the workers the event names, else the last other entry. */
function workersInside(explanation: ViolationExplanation | null): string[] {
  if (explanation === null) return [];
  if (explanation.othersInside.length > 0) return explanation.othersInside.map((o) => o.worker);
  return explanation.previousEntry ? [explanation.previousEntry.worker] : [];
}

function describeChange(
  owner: ViolationOwner & { isComputed: true },
  change: OwnerChange,
  ctx: { key: string; atMs: number; timeZone: string; inside: string[] },
): string {
  const what =
    owner.rule === "key-shared"
      ? `range ${change.rangeBefore ? rangeWords(change.rangeBefore) : "holding it"}`
      : `the leader of ${partitionWords(owner.partition)}`;
  const when = `at ${formatInstant(change.changedAt, ctx.timeZone)}`;
  const sentence = `${when} ${what} moved from ${change.from ?? "nobody"} to ${change.to ?? "nobody"}${membershipWords(change)}`;
  const offset = ` (${formatOffset(Date.parse(change.changedAt) - ctx.atMs)} the violation)`;
  const wasStillProcessing = change.from !== null && ctx.inside.includes(change.from);
  return `${sentence}${offset}${wasStillProcessing ? `; ${change.from} was still processing ${ctx.key}` : ""}`;
}

/**
 * One sentence: the key's hash (or routed partition), its owner then, and the change of owner
 * around the violation, or that the owner was stable (two workers inside with no rebalance), or
 * why the owner cannot be computed.
 */
export function describeOwner(
  owner: ViolationOwner,
  context: { key: string; observedAt: string; windowMs: number; timeZone: string; explanation: ViolationExplanation | null },
): string {
  const { key, timeZone } = context;
  if (!owner.isComputed) return `The owner of key ${key} cannot be computed: ${owner.detail}.`;
  const atMs = Date.parse(context.observedAt);
  const subject =
    owner.rule === "key-shared"
      ? `key ${key} hashes to ${formatCount(owner.hash ?? 0)}`
      : owner.isPartitionRouted
        ? `key ${key} routes to ${partitionWords(owner.partition)}`
        : `key ${key} is on ${partitionWords(owner.partition)}`;
  const change = owner.change;
  if (change !== null) {
    const inside = workersInside(context.explanation);
    return `${capitalise(subject)}; ${describeChange(owner, change, { key, atMs, timeZone, inside })}.`;
  }
  const holder =
    owner.rule === "key-shared"
      ? owner.range
        ? `in range ${rangeWords(owner.range)} of ${owner.owner ?? "no consumer"}`
        : "in no consumer's range"
      : `whose leader was ${owner.owner ?? "nobody"}`;
  return `${capitalise(subject)}, ${holder}; the owner did not change within ±${formatDuration(context.windowMs)}: two workers were inside with no rebalance.`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
