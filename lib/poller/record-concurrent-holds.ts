import "server-only";

import type pg from "pg";

import { createIngestPool } from "@/lib/ingest/ingest-pool";
import { writeEvents } from "@/lib/ingest/write-events";
import { type ConcurrentHoldPair, pairEventId, toConcurrentHoldEvents } from "@/lib/poller/concurrent-hold-events";

// Writes the double runs a poller's reads saw (concurrent-hold-events.ts) into the event store,
// through the ingest write, so that the violation rollups count them as any counter's violation.
// A pair is written once per poller: later reads of it write nothing, and a restarted (or another)
// poller writing it again finds its id stored. The event store's pool is opened on the first pair:
// a poller whose locks never run twice holds no connection for it.

export type ConcurrentHoldRecorder = {
  /** Writes the pairs not written before (the earlier hold's entry and the violation); a failed write is logged and tried again on the next read. Returns how many events were new. */
  record(pairs: readonly ConcurrentHoldPair[]): Promise<number>;
  close(): Promise<void>;
};

export function createConcurrentHoldRecorder(options: { databaseUrl: string; cluster: string; log: (line: string) => void }): ConcurrentHoldRecorder {
  let pool: pg.Pool | null = null;
  const recorded = new Set<string>();
  return {
    async record(pairs) {
      const fresh = new Map<string, ConcurrentHoldPair>();
      for (const pair of pairs) {
        const id = pairEventId(options.cluster, pair);
        if (!recorded.has(id)) fresh.set(id, pair);
      }
      if (fresh.size === 0) return 0;
      pool ??= createIngestPool(options.databaseUrl);
      try {
        // A hold beside several others enters once: one event per id in the batch.
        const events = new Map([...fresh.values()].flatMap((pair) => toConcurrentHoldEvents(options.cluster, pair)).map((event) => [event.eventId, event]));
        const written = await writeEvents(pool, [...events.values()], "POLLER");
        for (const [id, pair] of fresh) {
          recorded.add(id);
          options.log(`${pair.resourceKey}: ${pair.later.holder} ran while ${pair.earlier.holder} still ran (seen by ${pair.seenBy}): a violation`);
        }
        return written;
      } catch (error) {
        options.log(`writing ${fresh.size} double run(s) as violations failed (${(error as Error).message}); trying again on the next read`);
        return 0;
      }
    },
    async close() {
      await pool?.end();
      pool = null;
    },
  };
}
