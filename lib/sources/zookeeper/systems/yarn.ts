import { z } from "zod";

import { joinPath, znodePath } from "../znode-path";
import { ELECTOR_LOCK, parseActiveResourceManager } from "./hadoop-elector";
import type { LockTarget } from "./system-role";
import { readWildcards } from "./wildcards";

// YARN ResourceManager HA (the default ActiveStandbyElector; with Curator's elector enabled it is
// a LeaderLatch, which the curator-leader-latch recipe reads): <parent>/<cluster id>/
// ActiveStandbyElectorLock, an ActiveRMInfoProto (cluster id, RM id).

export const yarnSchema = z
  .object({
    system: z.literal("yarn"),
    /** yarn.resourcemanager.cluster-id; without it, every cluster under the parent. */
    clusterId: z
      .string()
      .trim()
      .min(1)
      .regex(/^[^/]+$/, { message: "must be a cluster id, not a path" })
      .optional(),
    /** yarn.resourcemanager.zk-state-store... parent: yarn.resourcemanager.ha.automatic-failover.zk-base-path. */
    root: znodePath.default("/yarn-leader-election"),
  })
  .strict();

export function yarnTargets(options: z.output<typeof yarnSchema>): LockTarget[] {
  const pattern = joinPath(options.root, options.clusterId ?? "*", ELECTOR_LOCK);
  return [
    {
      pattern,
      recipe: "ephemeral-node",
      mustBeHeld: true,
      role: {
        system: "yarn",
        describe: (path) => `YARN ResourceManager ${options.clusterId ?? readWildcards(pattern, path)[0]}`,
        parseHolder: parseActiveResourceManager,
      },
    },
  ];
}
