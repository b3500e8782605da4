import "server-only";

import { openHoldCycles } from "@/lib/poller/hold-cycles";
import type { CycleStates, SourceCycles } from "@/lib/poller/source-cycles";

import type { DatabaseSourceConfig } from "./database-config";
import { databaseDescription } from "./database-description";
import { chooseGetLockMode } from "./get-lock-mode";
import { probeServer } from "./get-lock-probes";
import { createGetLockHoldSource, type GetLockSourceConfig } from "./get-lock-source";
import { describeMysqlError, openMysqlConnection } from "./mysql-client";

// What the database kind does with mysql2 (engine "mariadb" or "mysql"): database-kind.ts loads
// this module when such a cluster is polled or checked, so mysql2 stays out of processes that
// watch PostgreSQL only (and pg out of those that watch MariaDB only).

export function openGetLockCycles(
  config: DatabaseSourceConfig & Pick<GetLockSourceConfig, "engine">,
  saved: CycleStates,
  log: (line: string) => void,
): Promise<SourceCycles> {
  return openHoldCycles(createGetLockHoldSource(config, { log }), saved.shape === "hold" ? saved.states : [], {
    resourceKind: databaseDescription.resourceKind,
    predictNextHolder: databaseDescription.predictNextHolder,
    discoveryIntervalMs: config.discoveryIntervalMs,
    pollIntervalMs: config.pollIntervalMs,
    log,
  });
}

/**
 * The mode the server is read in, and why: ok with performance_schema (every lock, holders and
 * waiters), degraded through the plugin or by name, or where the user lacks PROCESS, each saying
 * what to install or GRANT; down when the server does not answer, naming the url.
 */
export async function checkGetLockReachable(
  config: DatabaseSourceConfig & Pick<GetLockSourceConfig, "engine">,
  timeoutMs: number,
): Promise<{ status: "ok" | "degraded" | "down"; reason: string | null }> {
  let idleError: Error | null = null;
  const connection = openMysqlConnection(
    { url: config.url, statementTimeoutMs: Math.min(config.statementTimeoutMs, timeoutMs), connectTimeoutMs: timeoutMs },
    (error) => {
      idleError = error;
    },
  );
  try {
    const { probes } = await probeServer(connection);
    const mode = chooseGetLockMode(probes, { namesCount: config.names?.length ?? 0, setting: `clusters "${config.name}" url` });
    return { status: mode.isDegraded ? "degraded" : "ok", reason: mode.line };
  } catch (error) {
    return { status: "down", reason: describeMysqlError(idleError ?? error, config) };
  } finally {
    await connection.close().catch(() => undefined);
  }
}
