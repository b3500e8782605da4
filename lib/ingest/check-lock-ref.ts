import "server-only";

import { checkText } from "@/lib/ingest/check-text";
import { MAX_LOCK_REF_LENGTH } from "@/lib/ingest/limits";
import { parseLockRef } from "@/lib/violations/lock-ref";

/** An event's optional `lock`: "<cluster>/<lock key>", the cluster a name as configured clusters have. */
export function checkLockRef(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const problem = checkText(value, MAX_LOCK_REF_LENGTH, true);
  if (problem) return problem;
  return parseLockRef(value as string) === null ? 'must be "<cluster>/<lock key>", e.g. "redis-main/lock:daily-job"' : null;
}
