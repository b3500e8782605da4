import "server-only";

import type { IngestDb } from "@/lib/ingest/ingest-pool";
import type { IngestResult, IngestSource } from "@/lib/ingest/types";
import { type IngestRules, validateEvents } from "@/lib/ingest/validate-events";
import { writeEvents } from "@/lib/ingest/write-events";

/**
 * The ingest core, shared by the HTTP API and the Pulsar topic consumer: validates every item,
 * writes the valid ones (and their per-minute rollup) in one transaction, and says what
 * happened to each. Re-sending the same ids writes nothing new. Throws
 * DatabaseUnavailableError, with nothing written, when the database fails.
 */
export async function ingestEvents(db: IngestDb, items: readonly unknown[], source: IngestSource, rules: IngestRules): Promise<IngestResult> {
  const { events, rejected, duplicatesInBatch } = validateEvents(items, rules);
  const inserted = await writeEvents(db, events, source);
  return { accepted: inserted, duplicates: duplicatesInBatch + (events.length - inserted), rejected };
}
