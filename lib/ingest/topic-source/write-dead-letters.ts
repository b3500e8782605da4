import "server-only";

import { DatabaseUnavailableError } from "@/lib/ingest/database-unavailable-error";
import type { IngestDb } from "@/lib/ingest/ingest-pool";

export type DeadLetter = { messageId: string; payload: string; error: string };

/** Payloads are kept for diagnosis, not in full: a huge malformed message must not bloat the table. */
const MAX_KEPT_PAYLOAD_CHARS = 64 * 1024;

/**
 * Records malformed messages. A redelivered message (same source and id) is recorded once.
 * Throws DatabaseUnavailableError when the database fails, so that nothing is acked.
 */
export async function writeDeadLetters(db: IngestDb, source: string, letters: readonly DeadLetter[]): Promise<void> {
  if (letters.length === 0) return;
  try {
    await db.query(
      `INSERT INTO dead_letter (source, message_id, payload, error)
       SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[])
       ON CONFLICT (source, message_id) DO NOTHING`,
      [source, letters.map((l) => l.messageId), letters.map((l) => l.payload.slice(0, MAX_KEPT_PAYLOAD_CHARS)), letters.map((l) => l.error)],
    );
  } catch (error) {
    throw new DatabaseUnavailableError(error);
  }
}
