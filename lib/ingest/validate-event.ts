import "server-only";

import { MAX_EVENT_ID_LENGTH, MAX_INT4, MAX_KEY_LENGTH, MAX_NAME_LENGTH, MAX_TOPIC_LENGTH, MAX_TRACE_ID_LENGTH } from "@/lib/ingest/limits";
import { checkLockRef } from "@/lib/ingest/check-lock-ref";
import { checkOthersInside } from "@/lib/ingest/check-others-inside";
import { checkText } from "@/lib/ingest/check-text";
import { checkAttributes } from "@/lib/ingest/safe-json";
import { parseTimestamp } from "@/lib/ingest/timestamp";
import type { ValidEvent } from "@/lib/ingest/types";

// One counter event, checked field by field in plain code rather than with a zod schema: this
// runs for every event on the ingest hot path, and zod's per-check machinery cost about 6 µs
// per event here against about 1 µs for these checks (tests/bench), on a machine whose other
// core belongs to PostgreSQL. docs/ingest.md lists the same rules.

export type EventFieldError = { field: string | null; message: string };
export type EventCheck = { isValid: true; event: ValidEvent } | ({ isValid: false } & EventFieldError);

const KNOWN_FIELDS = new Set([
  "id",
  "key",
  "counter",
  "service",
  "worker",
  "topic",
  "subscription",
  "partition",
  "traceId",
  "observedAt",
  "attributes",
  "othersInside",
  "lock",
]);

function invalid(field: string | null, message: string): EventCheck {
  return { isValid: false, field, message };
}

function checkInteger(value: unknown, min: number, minMessage: string, isRequired: boolean): string | null {
  if (value === undefined || value === null) return isRequired ? "is required" : null;
  if (typeof value !== "number") return "must be a number";
  if (!Number.isInteger(value)) return "must be an integer";
  if (value < min) return minMessage;
  if (value > MAX_INT4) return `must be at most ${MAX_INT4}`;
  return null;
}

// Field order is the order problems are found in: an item gets one error, the first.
const TEXT_FIELDS = [
  ["id", MAX_EVENT_ID_LENGTH, true],
  ["key", MAX_KEY_LENGTH, true],
] as const;
const NAME_FIELDS = [
  ["service", MAX_NAME_LENGTH, true],
  ["worker", MAX_NAME_LENGTH, true],
  ["topic", MAX_TOPIC_LENGTH, false],
  ["subscription", MAX_NAME_LENGTH, false],
] as const;

/**
 * The times an event may carry: from the start of its retention period (violations may be kept
 * longer than other events) to a day ahead of now.
 */
export type EventTimeWindow = { nowMs: number; oldestMs: number; retentionDays: number; oldestViolationMs: number; violationRetentionDays: number };

/**
 * Checks one item against the event rules: a JSON object with only known fields; id, key,
 * service, worker required non-empty strings within their lengths; counter an integer 0..2^31-1;
 * topic, subscription, traceId optional strings; partition an optional integer >= -1;
 * observedAt RFC 3339 or epoch ms, within the retention and not a day ahead; attributes an optional
 * small JSON object; othersInside an optional list of { worker, enteredAt } (check-others-inside.ts). No string may hold NUL or an unpaired surrogate (PostgreSQL refuses them).
 */
export function validateEvent(item: unknown, window: EventTimeWindow): EventCheck {
  if (item === null || typeof item !== "object" || Array.isArray(item)) return invalid(null, "must be a JSON object");
  const record = item as Record<string, unknown>;
  for (const field of Object.keys(record)) {
    if (!KNOWN_FIELDS.has(field)) return invalid(field, "is not a known field (free-form data belongs in attributes)");
  }
  for (const [field, max, isRequired] of TEXT_FIELDS) {
    const problem = checkText(record[field], max, isRequired);
    if (problem) return invalid(field, problem);
  }
  const counterProblem = checkInteger(record.counter, 0, "must be 0 or more", true);
  if (counterProblem) return invalid("counter", counterProblem);
  for (const [field, max, isRequired] of NAME_FIELDS) {
    const problem = checkText(record[field], max, isRequired);
    if (problem) return invalid(field, problem);
  }
  const partitionProblem = checkInteger(record.partition, -1, "must be -1 (not partitioned) or more", false);
  if (partitionProblem) return invalid("partition", partitionProblem);
  const traceProblem = checkText(record.traceId, MAX_TRACE_ID_LENGTH, false);
  if (traceProblem) return invalid("traceId", traceProblem);

  if (record.observedAt === undefined) return invalid("observedAt", "is required");
  const observedAt = parseTimestamp(record.observedAt, window.nowMs);
  if (!observedAt.isValid) return invalid("observedAt", observedAt.message);
  // Retention would drop it at its next run: refused now rather than accepted and then lost.
  if ((record.counter as number) > 0) {
    if (observedAt.ms < window.oldestViolationMs) {
      return invalid(
        "observedAt",
        `is older than the ${window.violationRetentionDays}-day retention of violations (BATON_VIOLATION_RETENTION_DAYS): it would be deleted at once`,
      );
    }
  } else if (observedAt.ms < window.oldestMs) {
    return invalid("observedAt", `is older than the ${window.retentionDays}-day retention of events (BATON_RETENTION_DAYS): it would be deleted at once`);
  }

  let attributesJson: string | null = null;
  if (record.attributes !== undefined && record.attributes !== null) {
    const attributes = checkAttributes(record.attributes);
    if (!attributes.isValid) return invalid("attributes", attributes.message);
    attributesJson = attributes.json;
  }

  const othersInside = checkOthersInside(record.othersInside, { counter: record.counter as number, observedAtMs: observedAt.ms, nowMs: window.nowMs });
  if (!othersInside.isValid) return invalid(othersInside.field, othersInside.message);
  const lockProblem = checkLockRef(record.lock);
  if (lockProblem) return invalid("lock", lockProblem);

  return {
    isValid: true,
    event: {
      eventId: record.id as string,
      key: record.key as string,
      counter: record.counter as number,
      service: record.service as string,
      worker: record.worker as string,
      topic: (record.topic as string | null | undefined) ?? null,
      subscription: (record.subscription as string | null | undefined) ?? null,
      partition: (record.partition as number | null | undefined) ?? null,
      traceId: (record.traceId as string | null | undefined) ?? null,
      observedAtMs: observedAt.ms,
      attributesJson,
      othersInsideJson: othersInside.json,
      lock: (record.lock as string | null | undefined) ?? null,
    },
  };
}
