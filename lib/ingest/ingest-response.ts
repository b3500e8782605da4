import "server-only";

import type { IngestResult, RejectedItem } from "@/lib/ingest/types";

/** The HTTP answer to an events request: counts, and the index and field of each rejected item. */
export type IngestResponse = { accepted: number; duplicates: number; rejected: number; errors: RejectedItem[] };

export function toIngestResponse(result: IngestResult): IngestResponse {
  return { accepted: result.accepted, duplicates: result.duplicates, rejected: result.rejected.length, errors: result.rejected };
}
