// ZooKeeper locks and elections as the lists and the pages name them. Client-safe: the board's
// filters, the lock page and the read API's enums derive from it (lib/sources/kind-descriptions.ts).

import { cannotPredict } from "@/lib/poller/next-holder";
import { describeKind } from "@/lib/sources/kind-description";

export const zookeeperDescription = describeKind({
  kind: "zookeeper",
  label: "ZooKeeper",
  clusterKind: "ZOOKEEPER",
  boardWords: "ZooKeeper locks",
  shape: "hold",
  resourceKind: "ZOOKEEPER_LOCK",
  describeHoldTerm: () => ({ term: "Session timeout", source: "the holder's ZooKeeper session: its node goes when the session expires" }),
  // Curator's and Kazoo's recipes (and Solr's, BookKeeper's, go-zookeeper's) queue by sequence
  // node: the next lowest takes over. A node that is itself the lock has standbys, no queue.
  predictNextHolder: (waiters, details) =>
    details.recipe === "ephemeral-node"
      ? cannotPredict("no-queue", "the standbys race to create the node when it goes: whoever creates it first leads")
      : { holder: waiters[0] ?? null, reason: null, detail: null },
});
