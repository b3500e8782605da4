import "server-only";

import { ConfigError, readConfigText } from "@/lib/config-files";
import { defineSourceKind } from "@/lib/poller/contract/source-kind";
import { identityOf } from "@/lib/sources/kind-identity";

import { listLockTargets } from "./lock-targets";
import { type ZookeeperClusterConfig, zookeeperClusterSchema } from "./zookeeper-config";
import { zookeeperDescription } from "./zookeeper-description";
import type { ZookeeperKindConfig } from "./zookeeper-source";

// Baton's ZooKeeper kind: who holds each lock and election of Apache Curator's and Kazoo's
// recipes. The files, in the order a poll uses them:
//   zookeeper-config.ts      the `kind: "zookeeper"` settings (zod) and their one-line errors
//   zookeeper-connection.ts  the one transport: a session, the request budget, timeouts
//   discover-lock-paths.ts   configured lock paths, or a walk under a root
//   lock-targets.ts          configured paths and the systems' paths (systems/: one file each)
//   read-lock-paths.ts       getChildren (arming a watch) + getData of holder and waiters
//   read-leader-nodes.ts     a node that is the lock: exists (arming a watch) + getData, standbys
//   recipe-layout.ts         the recipes' child names, queue order (pure)
//   session-dump.ts          the server's `dump`: each session's deadline (when allowed)
//   lock-observation.ts      one lock's reads -> HoldObservation (pure)
//   leader-observation.ts    one leader node's reads -> HoldObservation (pure)
//   zookeeper-source.ts      all of it as the HoldSource the shared hold cycles read
// No Next and no Prisma here: the poller owns storage.

function describeScope(config: ZookeeperClusterConfig): string {
  const paths = listLockTargets(config).map((t) => `${t.role ? `${t.role.system} ` : ""}${t.pattern} (${t.recipe}${t.mustBeHeld ? ", must be held" : ""})`);
  if (config.root)
    paths.push(`every lock under ${config.root.path} (${config.root.recipe}, depth ${config.root.maxDepth}${config.root.mustBeHeld ? ", must be held" : ""})`);
  return paths.join(", ");
}

export const zookeeperKind = defineSourceKind<ZookeeperClusterConfig, ZookeeperKindConfig>({
  ...identityOf(zookeeperDescription),
  configSchema: zookeeperClusterSchema,
  resolveConfig: (config, setting, defaultPollIntervalMs) => {
    let digestSecret: string | undefined;
    if (config.digestFile) {
      digestSecret = readConfigText(`${setting}.digestFile`, config.digestFile).trim();
      if (!/^[^:\s]+:.+$/.test(digestSecret))
        throw new ConfigError(`Invalid configuration: ${setting}.digestFile must hold user:password (${config.digestFile} does not)`);
    }
    return { ...config, digestSecret, pollIntervalMs: config.pollIntervalMs ?? defaultPollIntervalMs };
  },
  describe: (config) => ({
    // Stored as the cluster row's address: the connect string alone.
    endpoint: config.connectString,
    scope: describeScope(config),
    budget: `${config.requestsPerSecond} requests/s`,
    // How Baton's session is set up, as Redis's entry names its Redlock group here.
    // What the server does with `dump` is the reachability check's to say (it asks the server).
    auth: `${config.digest || config.digestFile ? "digest" : "none"}; session ${config.sessionTimeoutMs} ms; session dump ${config.sessionDump}`,
  }),
  scopeOf: (config) => ({
    // What the lock pages read of every lock kind: each pattern its observations carry (a path,
    // or the root walked), with its layout and whether it must always be held.
    patterns: [
      ...listLockTargets(config).map(({ pattern, recipe, mustBeHeld }) => ({ match: pattern, layout: recipe, mustBeHeld })),
      ...(config.root ? [{ match: config.root.path, layout: config.root.recipe, mustBeHeld: config.root.mustBeHeld }] : []),
    ],
    paths: (config.paths ?? []).map(({ path, recipe, mustBeHeld }) => ({ path, recipe, mustBeHeld })),
    root: config.root ?? null,
    systems: config.systems ?? [],
    sessionTimeoutMs: config.sessionTimeoutMs,
    sessionDump: config.sessionDump,
  }),
  // node-zookeeper-client loads when a ZooKeeper cluster is polled or checked, not in every process.
  openCycles: async (config, saved, log) => (await import("./zookeeper-runtime")).openZookeeperCycles(config, saved, log),
  checkReachable: async (config, timeoutMs) => (await import("./zookeeper-runtime")).checkZookeeperReachable(config, timeoutMs),
});
