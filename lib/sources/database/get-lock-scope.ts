import type { ClusterFacts } from "@/lib/poller/contract/source-kind";

import { type DatabaseClusterConfig, describeServer } from "./database-config";
import { literalPattern } from "./get-lock-observation";
import { UNNAMED_PATTERN } from "./lock-observation";

// A GET_LOCK cluster entry (engine "mariadb" or "mysql") in words for the Clusters page, and its
// patterns as stored on the cluster row: each configured name its own (so a name that must be
// held is flagged while free), the names nobody configured under one. Which mode the server is
// read in is the server's answer, not the configuration's: the reachability check says it.

type GetLockEntry = Pick<DatabaseClusterConfig, "url" | "names" | "statementTimeoutMs"> & { engine: "mariadb" | "mysql" };

export function getLockPatterns(config: Pick<GetLockEntry, "names">): { match: string; layout: string; mustBeHeld: boolean }[] {
  return [
    ...(config.names ?? []).map((entry) => ({ match: literalPattern(entry.name), layout: "get-lock", mustBeHeld: entry.mustBeHeld })),
    { match: UNNAMED_PATTERN, layout: "get-lock", mustBeHeld: false },
  ];
}

export function describeGetLockCluster(config: GetLockEntry): ClusterFacts {
  const count = config.names?.length ?? 0;
  return {
    endpoint: `${config.engine}://${describeServer(config.url)}`,
    scope: `GET_LOCK user locks: every lock with performance_schema or the metadata_lock_info plugin, else the ${count} configured name${count === 1 ? "" : "s"}`,
    budget: `one query per read, a few more at each discovery (what the server offers), statement timeout ${config.statementTimeoutMs} ms`,
    auth: `user ${decodeURIComponent(new URL(config.url).username) || "(the connecting user)"}`,
    note: "the user needs SELECT on performance_schema (with performance_schema on and its wait/lock/metadata/sql/mdl instrument enabled) to see every lock and its waiters; else the metadata_lock_info plugin (MariaDB), else only the configured names are read; PROCESS to see holders beyond their connection id outside performance_schema",
  };
}
