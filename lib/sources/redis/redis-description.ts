// Redis locks as the lists and the pages name them. Client-safe: the board's filters, the lock
// page and the read API's enums derive from it (lib/sources/kind-descriptions.ts).

import { cannotPredict } from "@/lib/poller/next-holder";
import { describeKind } from "@/lib/sources/kind-description";

export const redisDescription = describeKind({
  kind: "redis",
  label: "Redis",
  clusterKind: "REDIS",
  boardWords: "Redis locks",
  shape: "hold",
  resourceKind: "REDIS_LOCK",
  describeHoldTerm: (details) =>
    details.redlock === true
      ? { term: "TTL", source: "the lock key's TTL (PTTL) on the masters that hold it, the longest read this hold" }
      : { term: "TTL", source: "the lock key's TTL in Redis (PTTL), the longest read this hold" },
  // Only a Redisson fair lock queues (redisson_lock_queue): SET NX locks and Redlock groups race.
  predictNextHolder: (waiters, details) => {
    const head = waiters[0] ?? null;
    if (details.redlock === true) return cannotPredict("no-queue", "a Redlock group has no queue: whoever retries first after a release takes it");
    if (head !== null) return { holder: head, reason: null, detail: null };
    if (details.layout === "redisson")
      return cannotPredict("no-queue", "nobody is in redisson_lock_queue: a plain Redisson lock has no queue, and a fair lock's is empty");
    return cannotPredict("no-queue", "a SET NX lock has no queue: whoever retries first after a release takes it");
  },
});
