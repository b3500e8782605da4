// Pulsar as the lists and the pages name it. Client-safe: the board's filters and the read
// API's enums derive from it (lib/sources/kind-descriptions.ts).

import { describeKind } from "@/lib/sources/kind-description";

export const pulsarDescription = describeKind({
  kind: "pulsar",
  label: "Pulsar",
  clusterKind: "PULSAR",
  boardWords: "Pulsar subscriptions",
  shape: "subscription-partition",
  resourceKind: "PULSAR_SUBSCRIPTION_PARTITION",
});
