// The next holder of a lock: the head of its queue where the lock has one (a ZooKeeper lock's
// next sequence node, an etcd election's next create revision, a Redisson fair lock's
// redisson_lock_queue), and "no queue" where it has none (Redis SET NX, Redlock, a Kubernetes
// Lease, a DynamoDB lock): whoever retries first takes those, and Baton does not guess.
// Client-safe, pure.

import { cannotPredict, type NextHolder } from "@/lib/poller/next-holder";

export type NextWaiterInput = {
  resourceKind: "REDIS_LOCK" | "ZOOKEEPER_LOCK" | "ETCD_LOCK" | "DYNAMODB_LOCK" | "KUBERNETES_LEASE";
  /** Queued contenders in queue order. */
  waiters: readonly string[];
  /** The source kind's own details of the last observation (Redis: layout, redlock). */
  source: Record<string, unknown>;
};

export function predictNextWaiter(lock: NextWaiterInput): NextHolder {
  const head = lock.waiters[0] ?? null;
  switch (lock.resourceKind) {
    case "ZOOKEEPER_LOCK":
    case "ETCD_LOCK":
      return { holder: head, reason: null, detail: null };
    case "REDIS_LOCK":
      if (lock.source.redlock === true) return cannotPredict("no-queue", "a Redlock group has no queue: whoever retries first after a release takes it");
      if (head !== null) return { holder: head, reason: null, detail: null };
      if (lock.source.layout === "redisson") {
        return cannotPredict("no-queue", "nobody is in redisson_lock_queue: a plain Redisson lock has no queue, and a fair lock's is empty");
      }
      return cannotPredict("no-queue", "a SET NX lock has no queue: whoever retries first after a release takes it");
    case "DYNAMODB_LOCK":
      return cannotPredict("no-queue", "a DynamoDB lock has no queue: whichever client retries first after a release or a lease's end takes it");
    case "KUBERNETES_LEASE":
      return cannotPredict("no-queue", "a Lease has no queue: whichever candidate renews first takes it");
  }
}
