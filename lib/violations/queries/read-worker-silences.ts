import "server-only";

import type { SqlDb } from "@/lib/db/sql-db";
import { sql } from "@/lib/db/sql";
import { type IsSilentBefore, type SilenceProbe, WAKE_SILENCE_MS } from "@/lib/violations/violation-cause";

// Whether workers sent no event in the WAKE_SILENCE_MS before given instants (the moves of keys
// away from them): one statement for a page. Each probe reads the events of that short range by
// the primary key (observed_at leads) and stops at the worker's first event: a busy worker costs
// one row, a silent one the range's rows, and only violations whose key moved away from the
// worker that entered are probed.

const probeKey = (probe: SilenceProbe) => `${probe.worker}\u0000${probe.atMs}`;

export async function readWorkerSilences(db: SqlDb, probes: readonly SilenceProbe[]): Promise<IsSilentBefore> {
  const unique = [...new Map(probes.map((p) => [probeKey(p), p])).values()];
  if (unique.length === 0) return () => false;
  const rows = await db.$queryRaw<{ worker: string; at_ms: number }[]>(sql`
    select p.worker, p.at_ms
    from unnest(${unique.map((p) => p.worker)}::text[], ${unique.map((p) => p.atMs)}::float8[]) as p(worker, at_ms)
    where not exists (
      select 1 from exclusivity_event e
      where e.observed_at >= to_timestamp((p.at_ms - ${WAKE_SILENCE_MS}) / 1000.0) and e.observed_at < to_timestamp(p.at_ms / 1000.0)
        and e.worker = p.worker
    )`);
  const silent = new Set(rows.map((row) => probeKey({ worker: row.worker, atMs: Number(row.at_ms) })));
  return (probe) => silent.has(probeKey(probe));
}
