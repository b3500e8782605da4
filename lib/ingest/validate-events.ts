import "server-only";

import type { RejectedItem, ValidEvent } from "@/lib/ingest/types";
import { validateEvent } from "@/lib/ingest/validate-event";

export type ValidatedBatch = {
  /** Valid events, each id once (the first occurrence wins). */
  events: ValidEvent[];
  rejected: RejectedItem[];
  /** Valid items that repeated an id seen earlier in the same batch. */
  duplicatesInBatch: number;
};

/** Validates every item on its own: one bad item never rejects its neighbours. */
export function validateEvents(items: readonly unknown[]): ValidatedBatch {
  const nowMs = Date.now();
  const events: ValidEvent[] = [];
  const rejected: RejectedItem[] = [];
  const seenIds = new Set<string>();
  let duplicatesInBatch = 0;
  for (let index = 0; index < items.length; index++) {
    const checked = validateEvent(items[index], nowMs);
    if (!checked.isValid) {
      rejected.push({ index, field: checked.field, message: checked.message });
      continue;
    }
    if (seenIds.has(checked.event.eventId)) {
      duplicatesInBatch += 1;
      continue;
    }
    seenIds.add(checked.event.eventId);
    events.push(checked.event);
  }
  return { events, rejected, duplicatesInBatch };
}
