import "server-only";

import { openHoldCycles } from "@/lib/poller/hold-cycles";
import type { CycleStates, SourceCycles } from "@/lib/poller/source-cycles";

import { STATS_PRIVILEGE_SQL } from "./advisory-lock-rows";
import { describeDatabaseError, openDatabaseConnection } from "./database-client";
import type { DatabaseSourceConfig } from "./database-config";
import { databaseDescription } from "./database-description";
import { createDatabaseHoldSource } from "./index";
import { createLockTables } from "./lock-tables";

// What the database kind does with pg: database-kind.ts loads this module when a database
// cluster is polled or checked.

export function openDatabaseCycles(config: DatabaseSourceConfig, saved: CycleStates, log: (line: string) => void): Promise<SourceCycles> {
  return openHoldCycles(createDatabaseHoldSource(config, { log }), saved.shape === "hold" ? saved.states : [], {
    resourceKind: databaseDescription.resourceKind,
    predictNextHolder: databaseDescription.predictNextHolder,
    discoveryIntervalMs: config.discoveryIntervalMs,
    pollIntervalMs: config.pollIntervalMs,
    log,
  });
}

/**
 * The server answers a read-only query (ok); the role cannot see other sessions in full
 * (degraded: holders by pid alone, no idle-in-transaction check), or a lock table cannot be read
 * (degraded, naming its setting); or it does not answer (down).
 */
export async function checkDatabaseReachable(
  config: DatabaseSourceConfig,
  timeoutMs: number,
): Promise<{ status: "ok" | "degraded" | "down"; reason: string | null }> {
  let idleError: Error | null = null;
  const connection = openDatabaseConnection(
    { url: config.url, statementTimeoutMs: Math.min(config.statementTimeoutMs, timeoutMs), connectTimeoutMs: timeoutMs },
    (error) => {
      idleError = error;
    },
  );
  try {
    const [row] = await connection.read<{ can_read_stats: boolean; role: string }>(STATS_PRIVILEGE_SQL, []);
    const reasons: string[] = [];
    if (row?.can_read_stats !== true) {
      reasons.push(
        `role ${row?.role ?? "?"} is not in pg_read_all_stats: holders show as pid and application name only (no client address, session start or idle-in-transaction check); GRANT pg_monitor TO ${row?.role ?? "<role>"}`,
      );
    }
    for (const read of await createLockTables(config, connection, () => undefined).read()) if ("error" in read) reasons.push(read.error);
    return reasons.length === 0 ? { status: "ok", reason: null } : { status: "degraded", reason: reasons.join("; ") };
  } catch (error) {
    return { status: "down", reason: describeDatabaseError(idleError ?? error, config) };
  } finally {
    await connection.close().catch(() => undefined);
  }
}
