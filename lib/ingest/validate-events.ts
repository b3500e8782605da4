import "server-only";

import type { RejectedItem, ValidEvent } from "@/lib/ingest/types";
import { type EventTimeWindow, validateEvent } from "@/lib/ingest/validate-event";

export type ValidatedBatch = {
  /** Valid events, each id once (the first occurrence wins). */
  events: ValidEvent[];
  rejected: RejectedItem[];
  /** Valid items that repeated an id seen earlier in the same batch. */
  duplicatesInBatch: number;
};

/**
 * Events older than this many days are refused (retention would delete them at once); violations
 * (counter > 0) against their own retention, the same as other events' when not given.
 */
export type IngestRules = { retentionDays: number; violationRetentionDays?: number };

/** Validates every item on its own: one bad item never rejects its neighbours. */
export function validateEvents(items: readonly unknown[], rules: IngestRules): ValidatedBatch {
  const nowMs = Date.now();
  const violationRetentionDays = rules.violationRetentionDays ?? rules.retentionDays;
  const window: EventTimeWindow = {
    nowMs,
    oldestMs: nowMs - rules.retentionDays * 86_400_000,
    retentionDays: rules.retentionDays,
    oldestViolationMs: nowMs - violationRetentionDays * 86_400_000,
    violationRetentionDays,
  };
  const events: ValidEvent[] = [];
  const rejected: RejectedItem[] = [];
  const seenIds = new Set<string>();
  let duplicatesInBatch = 0;
  for (let index = 0; index < items.length; index++) {
    const checked = validateEvent(items[index], window);
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
