import { z } from "zod";

import { joinPath, znodePath } from "../znode-path";
import type { LockTarget } from "./system-role";
import { readWildcards } from "./wildcards";

// Apache Solr (SolrCloud): LeaderElector queues under <election path>/election as
// <session id>-<node name>-n_<seq> (the solr-election recipe); the lowest leads. The overseer's
// under /overseer_elect, each shard's under /collections/<collection>/leader_elect/<shard>.

export const solrSchema = z
  .object({
    system: z.literal("solr"),
    /** Solr's chroot in ZooKeeper (zkHost's path): "/" or e.g. "/solr". */
    root: znodePath.default("/"),
    /** Also every shard's leader election of every collection (one lock per shard). */
    shardLeaders: z.boolean().default(true),
  })
  .strict();

export function solrTargets(options: z.output<typeof solrSchema>): LockTarget[] {
  const shards = joinPath(options.root, "collections", "*", "leader_elect", "*", "election");
  return [
    {
      pattern: joinPath(options.root, "overseer_elect", "election"),
      recipe: "solr-election",
      mustBeHeld: true,
      role: { system: "solr", describe: () => "Solr overseer" },
    },
    ...(options.shardLeaders
      ? [
          {
            pattern: shards,
            recipe: "solr-election" as const,
            mustBeHeld: true,
            role: { system: "solr", describe: (path: string) => `Solr shard leader ${readWildcards(shards, path).join("/")}` },
          },
        ]
      : []),
  ];
}
