import "server-only";

import { getDb } from "@/lib/db/client";
import type { HealthVerdict } from "@/lib/health/health-verdict";
import { readHealthVerdict } from "@/lib/health/read-health-verdict";

/**
 * The verdict a page is rendered with, so the header says what fires from its first paint. The
 * browser's health check also waits for each cluster's own answer (up to the health timeout);
 * this is the same judgement (readHealthVerdict) from the alert table alone, and the check's
 * answer replaces it as soon as it comes. Null when the database does not answer within
 * `boundMs`: the header then waits for the check, which says why.
 */
export async function readHeaderVerdict(boundMs: number): Promise<HealthVerdict | null> {
  let timer: NodeJS.Timeout | undefined;
  const outOfTime = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), boundMs);
  });
  try {
    return await Promise.race([readHealthVerdict(getDb(), { isReachable: true, reason: null }), outOfTime]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}
