import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";

import { applyMigrations } from "@/lib/db/migrate";
import { type EmbeddedPostgresHandle, startEmbeddedPostgres } from "@/lib/db/embedded-postgres";
import { ingestEvents } from "@/lib/ingest/ingest-events";
import { createIngestPool } from "@/lib/ingest/ingest-pool";
import { makeEvent, uniquePrefix } from "@/tests/integration/ingest/ingest-test-kit";
import { pollUntil } from "@/tests/support/poll-until";
import { findFreePort } from "@/tools/free-port";

// Nothing acknowledged is lost across a PostgreSQL crash: clients keep sending batches through
// the ingest core while the server is stopped the way a crash stops it (SIGQUIT: an immediate
// shutdown, no checkpoint; the restart replays the WAL), then started again on the same data.
// Every batch answered as written must be in the table afterwards, and the rollups must equal a
// recount from the events (a batch that failed wrote nothing, not half of itself).

const baseDir = mkdtempSync(path.join(os.tmpdir(), "baton-ingest-crash-"));
const dataDir = path.join(baseDir, "pgdata");
let server: EmbeddedPostgresHandle | null = null;

afterAll(async () => {
  await server?.stop();
  rmSync(baseDir, { recursive: true, force: true });
}, 60_000);

/** Until `condition` holds, read every 100 ms, at most `reads` times. */
async function waitFor(condition: () => boolean, description: string, reads = 1_200): Promise<void> {
  await pollUntil(
    async () => condition(),
    (done) => done,
    { maxAttempts: reads, intervalMs: 100, description },
  );
}

function postmasterPid(): number {
  return Number(readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("ingest across a PostgreSQL crash", () => {
  it("keeps every acknowledged event, and the rollups equal a recount", async () => {
    const port = await findFreePort();
    const start = () => startEmbeddedPostgres({ baseDir, port, database: "baton_crash" });
    server = await start();
    await applyMigrations(server.url);
    const pool = createIngestPool(server.url);
    const service = uniquePrefix("crash");
    const acknowledged = new Set<string>();
    let failures = 0;
    let next = 0;
    let isSending = true;
    const client = async () => {
      while (isSending) {
        const batch = Array.from({ length: 200 }, () => {
          const n = next++;
          return makeEvent(service, `${service}-${n}`, { counter: n % 5 === 0 ? 1 : 0, subscription: n % 3 === 0 ? undefined : `sub-${n % 2}` });
        });
        try {
          const result = await ingestEvents(pool, batch, "HTTP", { retentionDays: 30 });
          expect(result.accepted).toBe(batch.length);
          for (const event of batch) acknowledged.add(event.id as string);
        } catch {
          // Not acknowledged: the client would send it again; this one sends new events instead.
          failures += 1;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    };
    const clients = Array.from({ length: 4 }, client);
    try {
      await waitFor(() => acknowledged.size >= 4_000, "4,000 events acknowledged before the crash");
      const pid = postmasterPid();
      process.kill(pid, "SIGQUIT");
      await waitFor(() => !isAlive(pid), "the postmaster to exit");
      await waitFor(() => failures > 0, "a batch to fail while the server is down");
      const beforeRestart = acknowledged.size;
      server = await start();
      await waitFor(() => acknowledged.size >= beforeRestart + 4_000, "4,000 more events acknowledged after the restart");
    } finally {
      isSending = false;
      await Promise.all(clients);
      await pool.end();
    }

    const check = new pg.Client({ connectionString: server.url });
    await check.connect();
    try {
      const stored = await check.query<{ id: string }>("SELECT baton_id_text(event_id) AS id FROM exclusivity_event WHERE service = $1", [service]);
      const storedIds = new Set(stored.rows.map((row) => row.id));
      const lost = [...acknowledged].filter((id) => !storedIds.has(id));
      expect(lost).toEqual([]);
      const totals = await check.query<{ events: number; violations: number }>(
        "SELECT coalesce(sum(events), 0)::int AS events, coalesce(sum(violations), 0)::int AS violations FROM violation_minute WHERE service = $1",
        [service],
      );
      const recount = await check.query<{ events: number; violations: number }>(
        "SELECT count(*)::int AS events, (count(*) FILTER (WHERE counter > 0))::int AS violations FROM exclusivity_event WHERE service = $1",
        [service],
      );
      expect(totals.rows[0]).toEqual(recount.rows[0]);
      expect(recount.rows[0]!.events).toBe(storedIds.size);
    } finally {
      await check.end();
    }
  }, 300_000);
});
