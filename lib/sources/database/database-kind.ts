import "server-only";

import { defineSourceKind } from "@/lib/poller/contract/source-kind";
import { identityOf } from "@/lib/sources/kind-identity";

import { type DatabaseClusterConfig, databaseClusterSchema, type DatabaseSourceConfig, describeServer, isGetLockConfig } from "./database-config";
import { databaseDescription } from "./database-description";
import { describeGetLockCluster, getLockPatterns } from "./get-lock-scope";
import { DATABASE_MOVING_DETAILS, UNNAMED_PATTERN } from "./lock-observation";
import { tablePattern } from "./lock-table-rows";

/**
 * Database locks: PostgreSQL advisory locks (pg_locks joined to pg_stat_activity), and lock tables
 * (ShedLock, Spring Integration, Quartz); or MariaDB/MySQL GET_LOCK user locks (engine "mariadb", "mysql").
 */
export const databaseKind = defineSourceKind<DatabaseClusterConfig, DatabaseSourceConfig>({
  ...identityOf(databaseDescription, { movingDetails: DATABASE_MOVING_DETAILS }),
  configSchema: databaseClusterSchema,
  resolveConfig: (config, _setting, defaultPollIntervalMs) => ({ ...config, pollIntervalMs: config.pollIntervalMs ?? defaultPollIntervalMs }),
  describe: (config) => {
    if (isGetLockConfig(config)) return describeGetLockCluster(config);
    const tables = config.tables ?? [];
    return {
      endpoint: `postgresql://${describeServer(config.url)}`,
      scope: `advisory locks of ${config.databases === undefined ? "every database" : config.databases.join(", ")} (${config.locks.length} named)${
        tables.length === 0 ? "" : `; lock tables ${tables.map((table) => `${table.table} (${table.format})`).join(", ")}`
      }`,
      budget: `${tables.length === 0 ? "one query" : `${1 + tables.length} queries (one per lock table)`} per read, statement timeout ${config.statementTimeoutMs} ms`,
      auth: `role ${decodeURIComponent(new URL(config.url).username) || "(the connecting user)"}`,
      note: `the role needs pg_read_all_stats (or pg_monitor) to see holders beyond their pid and application name${tables.length === 0 ? "" : ", and SELECT on each lock table"}`,
    };
  },
  scopeOf: (config) =>
    isGetLockConfig(config)
      ? { patterns: getLockPatterns(config), engine: config.engine }
      : {
          // Each named lock is its own pattern (its key in any watched database); the unnamed keys share one.
          patterns: [
            ...config.locks.map((lock) => ({
              match: `*/${lock.name}`,
              layout: "library" in lock ? lock.library : "advisory-key",
              mustBeHeld: lock.mustBeHeld,
            })),
            { match: UNNAMED_PATTERN, layout: "advisory-key", mustBeHeld: false },
            ...(config.tables ?? []).map((table) => ({ match: tablePattern(table), layout: table.format, mustBeHeld: false })),
          ],
          engine: config.engine,
          databases: config.databases ?? null,
        },
  // pg (or mysql2) loads when a database cluster of its engine is polled or checked.
  openCycles: async (config, saved, log) =>
    isGetLockConfig(config)
      ? (await import("./get-lock-runtime")).openGetLockCycles(config, saved, log)
      : (await import("./database-runtime")).openDatabaseCycles(config, saved, log),
  checkReachable: async (config, timeoutMs) =>
    isGetLockConfig(config)
      ? (await import("./get-lock-runtime")).checkGetLockReachable(config, timeoutMs)
      : (await import("./database-runtime")).checkDatabaseReachable(config, timeoutMs),
});
