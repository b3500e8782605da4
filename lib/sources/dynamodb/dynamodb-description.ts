// DynamoDB lock tables as the lists and the pages name them. Client-safe: the board's filters,
// the lock page and the read API's enums derive from it (lib/sources/kind-descriptions.ts).

import { cannotPredict } from "@/lib/poller/next-holder";
import { describeKind } from "@/lib/sources/kind-description";

export const dynamodbDescription = describeKind({
  kind: "dynamodb",
  label: "DynamoDB",
  clusterKind: "DYNAMODB",
  boardWords: "DynamoDB locks",
  shape: "hold",
  resourceKind: "DYNAMODB_LOCK",
  describeHoldTerm: () => ({ term: "Lease", source: "the lock item's leaseDuration" }),
  predictNextHolder: () => cannotPredict("no-queue", "a DynamoDB lock has no queue: whichever client retries first after a release or a lease's end takes it"),
});
