import "server-only";

import { MAX_NAME_LENGTH, MAX_OTHERS_INSIDE } from "@/lib/ingest/limits";
import { checkText } from "@/lib/ingest/check-text";
import { parseTimestamp } from "@/lib/ingest/timestamp";

export type OthersInsideCheck = { isValid: true; json: string | null } | { isValid: false; field: string; message: string };

const KNOWN_FIELDS = new Set(["worker", "enteredAt"]);

/**
 * An event's optional `othersInside`: the workers inside the key when this one entered, as
 * [{ worker, enteredAt }]. At most MAX_OTHERS_INSIDE of them and at most `counter` (each is one
 * of the others counted), worker a name like the event's, enteredAt a timestamp no later than
 * the event's observedAt. Stored as JSON with enteredAt in epoch ms; an empty list as nothing.
 */
export function checkOthersInside(value: unknown, context: { counter: number; observedAtMs: number; nowMs: number }): OthersInsideCheck {
  if (value === undefined || value === null) return { isValid: true, json: null };
  if (!Array.isArray(value)) return { isValid: false, field: "othersInside", message: "must be an array of { worker, enteredAt }" };
  if (value.length > MAX_OTHERS_INSIDE) return { isValid: false, field: "othersInside", message: `must list at most ${MAX_OTHERS_INSIDE} workers` };
  if (value.length > context.counter)
    return { isValid: false, field: "othersInside", message: `must list at most counter (${context.counter}) workers: each is one of the others inside` };
  if (value.length === 0) return { isValid: true, json: null };
  const others: { worker: string; enteredAt: number }[] = [];
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    const field = `othersInside.${i}`;
    if (item === null || typeof item !== "object" || Array.isArray(item))
      return { isValid: false, field, message: "must be a JSON object { worker, enteredAt }" };
    const record = item as Record<string, unknown>;
    for (const key of Object.keys(record)) if (!KNOWN_FIELDS.has(key)) return { isValid: false, field: `${field}.${key}`, message: "is not a known field" };
    const workerProblem = checkText(record.worker, MAX_NAME_LENGTH, true);
    if (workerProblem) return { isValid: false, field: `${field}.worker`, message: workerProblem };
    if (record.enteredAt === undefined || record.enteredAt === null) return { isValid: false, field: `${field}.enteredAt`, message: "is required" };
    const enteredAt = parseTimestamp(record.enteredAt, context.nowMs);
    if (!enteredAt.isValid) return { isValid: false, field: `${field}.enteredAt`, message: enteredAt.message };
    if (enteredAt.ms > context.observedAtMs)
      return { isValid: false, field: `${field}.enteredAt`, message: "must not be after observedAt (the other worker was inside before this one entered)" };
    others.push({ worker: record.worker as string, enteredAt: enteredAt.ms });
  }
  return { isValid: true, json: JSON.stringify(others) };
}
