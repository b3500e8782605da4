import "server-only";

import { createHash } from "node:crypto";

import type { ConcurrentHolds, HoldObservation } from "@/lib/poller/contract/hold-observation";
import type { ValidEvent } from "@/lib/ingest/types";

// Two holds of an exclusive lock running at once, seen in the lock's own records (a Quartz job's
// executions on two nodes; a ShedLock job's late release), as the exclusivity events a counter
// would have sent: the earlier hold's entry (counter 0: nobody was inside), and one violation per
// pair (the holder, another hold), the later one entering while the earlier one was inside. So a
// key's drill-down counts both hands among its workers and draws both entries. The violation's id
// is a hash of the cluster, the lock and both tokens, the entry's of the cluster, the lock and its
// own token (a hold beside several others is one entry); each event's time is its hold's start. So
// seeing the pair again (the next read, a restarted or another poller) writes nothing: the event
// store's key is (observed_at, event_id).

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
  return nameBasedId(["baton/concurrent-holds", cluster, pair.resourceKey, ...[pair.earlier.token, pair.later.token].sort()]);
}

/** The earlier hold's entry id: a name-based UUID of the cluster, the lock and its token. */
export function earlierEntryEventId(cluster: string, pair: ConcurrentHoldPair): string {
  return nameBasedId(["baton/concurrent-hold-entry", cluster, pair.resourceKey, pair.earlier.token]);
}

function nameBasedId(parts: string[]): string {
  const bytes = createHash("sha256").update(JSON.stringify(parts)).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The events a pair is: the earlier hold's entry, then the violation. */
export function toConcurrentHoldEvents(cluster: string, pair: ConcurrentHoldPair): ValidEvent[] {
  return [toEarlierEntryEvent(cluster, pair), toConcurrentHoldEvent(cluster, pair)];
}

/** The earlier holder's entry into the lock "<cluster>/<key>", nobody inside then: no violation. */
function toEarlierEntryEvent(cluster: string, pair: ConcurrentHoldPair): ValidEvent {
  return {
    eventId: earlierEntryEventId(cluster, pair),
    key: pair.resourceKey,
    counter: 0,
    service: cluster,
    worker: pair.earlier.holder,
    topic: null,
    subscription: null,
    partition: null,
    traceId: null,
    observedAtMs: Date.parse(pair.earlier.since),
    attributesJson: null,
    othersInsideJson: null,
    lock: `${cluster}/${pair.resourceKey}`,
  };
}

/** The violation a pair is: the later holder entered the lock "<cluster>/<key>" while the earlier one was inside. */
function toConcurrentHoldEvent(cluster: string, pair: ConcurrentHoldPair): ValidEvent {
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
