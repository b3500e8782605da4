import "server-only";

import { BinaryCopyWriter } from "@/lib/db/binary-copy-writer";
import { compactIdHex } from "@/lib/ingest/compact-id";
import type { IngestSource, ValidEvent } from "@/lib/ingest/types";

// A batch of events as binary COPY data (lib/db/binary-copy-writer.ts) for exclusivity_event,
// or for the staging table of the same columns, in primary-key order: (observed_at, event_id).

/** The columns of the data, in its order: the statements' COPY column lists use this. */
export const EVENT_COPY_COLUMNS =
  "(event_id, key, counter, is_violation, service, worker, topic, subscription, partition, trace_id, observed_at, source, attributes, others_inside, lock)";
const COLUMN_COUNT = 15;
/** Room for a typical event, so that the buffer rarely grows. */
const EXPECTED_BYTES_PER_EVENT = 400;

type PackedEvent = { event: ValidEvent; idHex: string };

/** Primary-key order: two batches sharing events insert them in the same order, so one waits for the other instead of deadlocking. */
function byPrimaryKey(a: PackedEvent, b: PackedEvent): number {
  if (a.event.observedAtMs !== b.event.observedAtMs) return a.event.observedAtMs - b.event.observedAtMs;
  // Hex digits of bytes sort as the bytes do (bytea compares bytes, then length).
  return a.idHex < b.idHex ? -1 : a.idHex > b.idHex ? 1 : 0;
}

function isSorted(packed: readonly PackedEvent[]): boolean {
  for (let i = 1; i < packed.length; i++) if (byPrimaryKey(packed[i - 1]!, packed[i]!) > 0) return false;
  return true;
}

export function toEventCopyData(events: readonly ValidEvent[], source: IngestSource): Buffer {
  const packed = events.map((event) => ({ event, idHex: compactIdHex(event.eventId) }));
  // Clients mostly send events in time order: a sorted batch is left as it is.
  if (!isSorted(packed)) packed.sort(byPrimaryKey);
  const writer = new BinaryCopyWriter(events.length * EXPECTED_BYTES_PER_EVENT);
  for (const { event, idHex } of packed) {
    writer
      .beginRow(COLUMN_COUNT)
      .byteaHex(idHex)
      .text(event.key)
      .int4(event.counter)
      .bool(event.counter > 0)
      .text(event.service)
      .text(event.worker)
      .text(event.topic)
      .text(event.subscription)
      .int4(event.partition)
      .byteaHex(event.traceId === null ? null : compactIdHex(event.traceId))
      .timestampMs(event.observedAtMs)
      .text(source)
      .jsonb(event.attributesJson)
      .jsonb(event.othersInsideJson)
      .text(event.lock);
  }
  return writer.finish();
}
