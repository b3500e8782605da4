// Database locks (PostgreSQL advisory locks, ShedLock, Spring Integration, Quartz and graphile-worker lock tables,
// MariaDB/MySQL GET_LOCK user locks) as the lists and the pages name them. Client-safe:
// the board's filters, the lock page and the read API's enums derive from it
// (lib/sources/kind-descriptions.ts).

import { cannotPredict } from "@/lib/poller/next-holder";
import { describeKind } from "@/lib/sources/kind-description";

export const databaseDescription = describeKind({
  kind: "database",
  label: "Database",
  clusterKind: "DATABASE",
  boardWords: "database locks",
  shape: "hold",
  resourceKind: "DATABASE_LOCK",
  describeHoldTerm: (details) => {
    if (details.lockFunction === "GET_LOCK") return { term: "No TTL", source: "held until unlock or session end" };
    if (details.format === "shedlock") return { term: "lockAtMostFor", source: "the row's lock_until: held until then unless released" };
    if (details.format === "spring-integration") {
      return details.schema === "6.x"
        ? { term: "TTL", source: "CREATED_DATE plus the configured ttlMs (the registry's TTL; 6.x keeps it in the application)" }
        : { term: "TTL", source: "the row's EXPIRED_AFTER" };
    }
    if (details.format === "graphile-worker") {
      return {
        term: "4 h after locked_at",
        source: "graphile-worker's own bound: a queue locked longer is abandoned, and the next worker's stale-lock reset frees it",
      };
    }
    if (details.format === "quartz") {
      return {
        term: "check-in interval + 7.5 s",
        source: "the instance's last check-in (QRTZ_SCHEDULER_STATE) plus its CHECKIN_INTERVAL and 7.5 s: then Quartz declares it failed and recovers its jobs",
      };
    }
    return { term: "No TTL", source: "held until unlock, transaction end or session end" };
  },
  // PostgreSQL grants an advisory lock to its waiters first come, first served: the one waiting
  // longest; MariaDB and MySQL serve GET_LOCK's waiters in arrival order too, but only
  // performance_schema shows them (read through the plugin or by name, the queue is unseen). A
  // lock table has no queue: its contenders try again on their schedule (Quartz: the next firing
  // goes to whichever node acquires the trigger first).
  // A holder idle in a transaction past idleInTransactionMaxMs (lock-observation.ts): the
  // classic stuck lock, held until someone commits, rolls back or terminates that session.
  describeStuckHolder: (details) => {
    if (details.isStuckIdleInTransaction !== true) return null;
    const idleMs = typeof details.idleInTransactionForMs === "number" ? details.idleInTransactionForMs : null;
    const session = typeof details.holderSession === "object" && details.holderSession !== null ? (details.holderSession as Record<string, unknown>) : null;
    const pid = typeof session?.pid === "number" ? ` (pid ${session.pid})` : "";
    return `its session${pid} has been idle in a transaction${idleMs === null ? "" : ` for ${Math.round(idleMs / 1000)} s`}, past idleInTransactionMaxMs: it keeps the lock until that transaction ends (pg_terminate_backend ends it)`;
  },
  predictNextHolder: (waiters, details) => {
    if (typeof details.format === "string")
      return cannotPredict("no-queue", "a lock table has no queue: the next node to try after its expiry or release takes it");
    if (details.lockFunction === "GET_LOCK" && details.readMode !== "performance_schema") {
      return cannotPredict("no-queue", "GET_LOCK's waiters are seen through performance_schema only: this server is read without it, so its queue is unknown");
    }
    return { holder: waiters[0] ?? null, reason: null, detail: null };
  },
});
