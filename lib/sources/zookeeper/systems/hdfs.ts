import { z } from "zod";

import { joinPath, znodePath } from "../znode-path";
import { ELECTOR_LOCK, parseActiveNameNode } from "./hadoop-elector";
import type { LockTarget } from "./system-role";
import { readWildcards } from "./wildcards";

// HDFS NameNode HA: each nameservice's ZKFCs elect under <ha.zookeeper.parent-znode>/<nameservice>
// (default /hadoop-ha); the active NameNode's ZKFC owns ActiveStandbyElectorLock, an
// ActiveNodeInfo protobuf (nameservice, NameNode id, host, RPC port, ZKFC port). The standby's
// ZKFC registers nothing: there is no list of standbys.

export const hdfsSchema = z
  .object({
    system: z.literal("hdfs"),
    /** One nameservice; without it, every nameservice under the parent is watched. */
    nameservice: z
      .string()
      .trim()
      .min(1)
      .regex(/^[^/]+$/, { message: "must be a nameservice id, not a path" })
      .optional(),
    /** ha.zookeeper.parent-znode. */
    root: znodePath.default("/hadoop-ha"),
  })
  .strict();

export function hdfsTargets(options: z.output<typeof hdfsSchema>): LockTarget[] {
  const pattern = joinPath(options.root, options.nameservice ?? "*", ELECTOR_LOCK);
  return [
    {
      pattern,
      recipe: "ephemeral-node",
      mustBeHeld: true,
      role: { system: "hdfs", describe: (path) => `HDFS NameNode ${options.nameservice ?? readWildcards(pattern, path)[0]}`, parseHolder: parseActiveNameNode },
    },
  ];
}
