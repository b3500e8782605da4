// Database locks (PostgreSQL advisory locks) as the lists and the pages name them. Client-safe:
// the board's filters, the lock page and the read API's enums derive from it
// (lib/sources/kind-descriptions.ts).

import { describeKind } from "@/lib/sources/kind-description";

export const databaseDescription = describeKind({
  kind: "database",
  label: "Database",
  clusterKind: "DATABASE",
  boardWords: "database locks",
  shape: "hold",
  resourceKind: "DATABASE_LOCK",
  describeHoldTerm: () => ({ term: "No TTL", source: "held until unlock, transaction end or session end" }),
  // PostgreSQL grants an advisory lock to its waiters first come, first served: the one waiting longest.
  predictNextHolder: (waiters) => ({ holder: waiters[0] ?? null, reason: null, detail: null }),
});
