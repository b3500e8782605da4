import "server-only";

import { createHash } from "node:crypto";

import type { ConcurrentHolds, HoldObservation } from "@/lib/poller/contract/hold-observation";
import type { ValidEvent } from "@/lib/ingest/types";

// Two holds of an exclusive lock running at once, seen in the lock's own records (a Quartz job's
// executions on two nodes; a ShedLock job's late release), as the exclusivity events a counter would have sent: one violation per
// pair (the holder, another hold), the later one entering while the earlier one was inside. Each
// event's id is a hash of the cluster, the lock and both tokens, and its time the later hold's
// start, so seeing the pair again (the next read, a restarted or another poller) writes nothing:
// the event store's key is (observed_at, event_id).

/** One pair of holds running at once on one lock. */
export type ConcurrentHoldPair = {
  resourceKey: string;
  seenBy: string;
  earlier: { holder: string; token: string; since: string };
  later: { holder: string; token: string; since: string };
};

/** The pairs an observation's concurrent holds make with the hold they ran beside. */
export function pairsOf(obs: Pick<HoldObservation, "resourceKey"> & { concurrentHolds?: ConcurrentHolds }): ConcurrentHoldPair[] {
  const concurrent = obs.concurrentHolds;
  if (concurrent === undefined) return [];
  const holder = concurrent.holder;
  return concurrent.others
    .filter((other) => other.token !== holder.token)
    .map((other) => {
      // The hold that began first was inside when the other entered; a tie is ordered by token.
      const isHolderFirst = Date.parse(holder.since) < Date.parse(other.since) || (holder.since === other.since && holder.token < other.token);
      return {
        resourceKey: obs.resourceKey,
        seenBy: concurrent.seenBy,
        earlier: isHolderFirst ? holder : other,
        later: isHolderFirst ? other : holder,
      };
    });
}

/** The pair's event id: a name-based UUID (version 5 layout) of the cluster, the lock and both tokens. */
export function pairEventId(cluster: string, pair: ConcurrentHoldPair): string {
  const tokens = [pair.earlier.token, pair.later.token].sort();
  const bytes = createHash("sha256")
    .update(JSON.stringify(["baton/concurrent-holds", cluster, pair.resourceKey, ...tokens]))
    .digest()
    .subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The violation a pair is: the later holder entered the lock "<cluster>/<key>" while the earlier one was inside. */
export function toConcurrentHoldEvent(cluster: string, pair: ConcurrentHoldPair): ValidEvent {
  return {
    eventId: pairEventId(cluster, pair),
    key: pair.resourceKey,
    counter: 1,
    service: cluster,
    worker: pair.later.holder,
    topic: null,
    subscription: null,
    partition: null,
    traceId: null,
    observedAtMs: Date.parse(pair.later.since),
    attributesJson: JSON.stringify({ twoHands: pair.seenBy }),
    othersInsideJson: JSON.stringify([{ worker: pair.earlier.holder, enteredAt: Date.parse(pair.earlier.since) }]),
    lock: `${cluster}/${pair.resourceKey}`,
  };
}
