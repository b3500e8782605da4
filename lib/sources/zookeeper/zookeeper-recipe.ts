import { z } from "zod";

// The recipes a lock node can follow (recipe-layout.ts reads their children), and `ephemeral-node`:
// the node itself is the lock (leader-observation.ts).

export const zookeeperRecipeSchema = z.enum([
  "curator-mutex",
  "curator-leader-latch",
  "curator-leader-selector",
  "kazoo-lock",
  "go-zookeeper-lock",
  "solr-election",
  "bookkeeper-auditor",
  "ephemeral-node",
  "auto",
]);

export type ZookeeperRecipe = z.output<typeof zookeeperRecipeSchema>;
