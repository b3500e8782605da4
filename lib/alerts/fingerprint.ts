import { createHash } from "node:crypto";

import type { AlertLabels } from "@/lib/alerts/alert-types";

/**
 * A stable fingerprint of an alert's labels: the same labels give the same fingerprint in any
 * process and any order, and unset labels count as absent (as Prometheus does with empty ones).
 */
export function fingerprintOf(labels: AlertLabels): string {
  const entries = Object.entries(labels)
    .filter(([, value]) => value !== undefined && value !== "")
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash("sha256").update(JSON.stringify(entries)).digest("hex").slice(0, 16);
}
