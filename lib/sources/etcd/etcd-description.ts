// etcd elections and locks as the lists and the pages name them. Client-safe: the board's
// filters, the lock page and the read API's enums derive from it (lib/sources/kind-descriptions.ts).

import { describeKind } from "@/lib/sources/kind-description";

export const etcdDescription = describeKind({
  kind: "etcd",
  label: "etcd",
  clusterKind: "ETCD",
  boardWords: "etcd locks",
  shape: "hold",
  resourceKind: "ETCD_LOCK",
  describeHoldTerm: () => ({ term: "Lease", source: "the TTL granted to the holder's etcd lease" }),
  // The concurrency package's Election and Mutex queue by create revision: the next lowest takes over.
  // A Patroni cluster's waiters come in the order Patroni would promote them (patroni-observation.ts).
  predictNextHolder: (waiters) => ({ holder: waiters[0] ?? null, reason: null, detail: null }),
});
