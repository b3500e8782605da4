import { z } from "zod";

import { ConfigError, describeConfigIssue } from "@/lib/config-files";

import { clusterName, positiveInt } from "@/lib/sources/config-fields";

import { listSystemTargets, systemSchema } from "./systems/systems";
import { type ZookeeperRecipe, zookeeperRecipeSchema } from "./zookeeper-recipe";
import { znodePath } from "./znode-path";

// The settings of one ZooKeeper source (`kind: "zookeeper"`). A plain zod object, so that
// lib/config.ts can list it as one member of its union on `kind`.

/**
 * Requests per second against the ensemble. One full read of a lock path is a getChildren plus
 * one getData per child read (the holder and its waiters): 5,000 paths with one waiter each is
 * 15,000 requests (npm run bench:zookeeper measures the cost). 5,000/s reads about 1,600 such
 * paths every poll of 5 s with room for watch-triggered reads in between.
 */
export const DEFAULT_REQUESTS_PER_SECOND = 5_000;
/** A walk of the root every 5 minutes: new lock paths under a watched one appear through watches sooner. */
export const DEFAULT_DISCOVERY_INTERVAL_MS = 300_000;
/** Baton's own session. Short enough that a Baton that died lets go of its watches soon; the server clamps it to 2..20 x tickTime. */
export const DEFAULT_SESSION_TIMEOUT_MS = 30_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;
/** Waiters whose data is read (their participant ids); further waiters are listed by node name. */
export const DEFAULT_MAX_WAITERS_READ = 50;

export { zookeeperRecipeSchema };

/** A host:port list, with an optional chroot: "zk1:2181,zk2:2181/app". */
const connectString = z
  .string()
  .trim()
  .refine((value) => /^[^\s/,:]+:\d{1,5}(,[^\s/,:]+:\d{1,5})*(\/[^\s]*)?$/.test(value), {
    message: "must be host:port[,host:port...][/chroot], e.g. zk1:2181,zk2:2181",
  });

const digestCredentials = z.string().regex(/^[^:\s]+:.+$/, { message: "must be user:password" });

const lockPathSchema = z
  .object({
    /** The lock's or election's node: its children are the contenders (or, `ephemeral-node`, the node itself is the lock). */
    path: znodePath.refine((value) => value !== "/", { message: "must name a lock node, not the root" }),
    /**
     * How its children are laid out; `auto` tells the recipes apart by their names.
     * `ephemeral-node`: the node itself is the lock (Kafka's /controller, Patroni's leader): held
     * while it exists, by what its data names.
     */
    recipe: zookeeperRecipeSchema.default("auto"),
    /** The lock must always have a holder (a leader election): a free lock is unhealthy. */
    mustBeHeld: z.boolean().default(false),
  })
  .strict();

const rootSchema = z
  .object({
    /** Every node under it whose children follow a known recipe is a lock. */
    path: znodePath,
    recipe: zookeeperRecipeSchema
      .refine((recipe) => recipe !== "ephemeral-node", {
        message: "cannot be ephemeral-node under a root (a walk finds queues, not single nodes): list such a node under paths",
      })
      .default("auto"),
    mustBeHeld: z.boolean().default(false),
    /** How deep the walk goes below the root (the lock nodes' depth, counting the root's children as 1). */
    maxDepth: positiveInt(1, 16).default(4),
  })
  .strict();

export const zookeeperClusterSchema = z
  .object({
    kind: z.literal("zookeeper"),
    name: clusterName,
    connectString,
    /** Baton's own session; the server clamps it to its min/max (2..20 x tickTime by default). */
    sessionTimeoutMs: positiveInt(1_000, 600_000).default(DEFAULT_SESSION_TIMEOUT_MS),
    /** Digest auth for ACL-protected lock nodes: "user:password", or a file holding it. */
    digest: digestCredentials.optional(),
    digestFile: z.string().min(1).optional(),
    paths: z.array(lockPathSchema).optional(),
    root: rootSchema.optional(),
    /** Systems whose leaders Baton knows where to find and how to read (Kafka's controller, HDFS NameNodes...). */
    systems: z.array(systemSchema).optional(),
    /**
     * The server's `dump` four-letter word (zookeeper.4lw.commands.whitelist must allow it; it
     * answers on the leader or a standalone server): each session's expiry deadline and which
     * sessions are alive. Without it a dead holder's time left is unknown, and a crash reads as a
     * release. "auto" uses it when the server answers it.
     */
    sessionDump: z.enum(["auto", "on", "off"]).default("auto"),
    requestsPerSecond: positiveInt(1, 1_000_000).default(DEFAULT_REQUESTS_PER_SECOND),
    discoveryIntervalMs: positiveInt(1_000, 86_400_000).default(DEFAULT_DISCOVERY_INTERVAL_MS),
    pollIntervalMs: positiveInt(100, 3_600_000).optional(),
    requestTimeoutMs: positiveInt(100, 120_000).default(DEFAULT_REQUEST_TIMEOUT_MS),
    maxWaitersRead: positiveInt(0, 10_000).default(DEFAULT_MAX_WAITERS_READ),
  })
  .strict()
  .superRefine((config, ctx) => {
    if (!config.paths && !config.root && !config.systems)
      ctx.addIssue({
        code: "custom",
        message: "is required: list the lock paths to watch, set root to find every lock under it, or name the systems whose leaders to watch",
        path: ["paths"],
      });
    if (config.systems && config.systems.length === 0) ctx.addIssue({ code: "custom", message: "must name at least one system", path: ["systems"] });
    if (config.paths && config.paths.length === 0) ctx.addIssue({ code: "custom", message: "must name at least one lock path", path: ["paths"] });
    if (config.digest && config.digestFile) ctx.addIssue({ code: "custom", message: "set digest or digestFile, not both", path: ["digestFile"] });
    const seen = new Set<string>();
    config.paths?.forEach((entry, index) => {
      if (seen.has(entry.path)) ctx.addIssue({ code: "custom", message: `duplicate path "${entry.path}"`, path: ["paths", index, "path"] });
      seen.add(entry.path);
    });
    config.systems?.forEach((entry, index) => {
      for (const target of listSystemTargets(entry)) {
        if (seen.has(target.pattern))
          ctx.addIssue({ code: "custom", message: `watches ${target.pattern}, which another entry already watches`, path: ["systems", index] });
        seen.add(target.pattern);
      }
    });
  });

export type ZookeeperClusterInput = z.input<typeof zookeeperClusterSchema>;
export type ZookeeperClusterConfig = z.output<typeof zookeeperClusterSchema>;
export type { ZookeeperRecipe };
export type ZookeeperLockPath = NonNullable<ZookeeperClusterConfig["paths"]>[number];

/** Its parse errors are the configuration's: one line naming the setting. */
export { ConfigError as ZookeeperConfigError } from "@/lib/config-files";

/**
 * Parses one ZooKeeper source, throwing a one-line error in lib/config.ts's wording:
 * `Invalid configuration: <root>.paths[0].path must be an absolute ZooKeeper path ... (got "locks")`.
 * The digest itself never appears in an error.
 */
export function parseZookeeperClusterConfig(input: unknown, root = "cluster"): ZookeeperClusterConfig {
  const parsed = zookeeperClusterSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new ConfigError(describeConfigIssue(root, input, parsed.error));
}
