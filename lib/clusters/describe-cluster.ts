import "server-only";

import type { ClusterConfig } from "@/lib/config";
import type { ClusterFacts } from "@/lib/poller/contract/source-kind";
import { sourceKindOf } from "@/lib/sources/registry";

/** A configured cluster in words, whatever its kind: for the Clusters page. */
export function describeCluster(cluster: ClusterConfig): ClusterFacts & { kindLabel: string } {
  const source = sourceKindOf(cluster);
  return { ...source.describe(cluster), kindLabel: source.label };
}
