import { requireBearerToken } from "@/lib/auth/require-bearer-token";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { readJsonBody } from "@/lib/http/parse-input";
import { withErrorHandling } from "@/lib/http/route-handler";
import { countsBodySchema } from "@/lib/ingest/counts/counts-schema";
import { ingestCounts } from "@/lib/ingest/counts/ingest-counts";
import { MAX_COUNTS_BODY_BYTES } from "@/lib/ingest/limits";
import { countIngest } from "@/lib/metrics/count-ingest";

export const dynamic = "force-dynamic";

/**
 * POST /api/v1/exclusivity-counts: one client's increments of one minute ("violations+counts"
 * mode). 200 with { accepted, duplicates } groups; a re-sent minute writes nothing. 400 naming
 * the field for a bad body, with nothing written.
 */
export const POST = countIngest(
  "counts",
  withErrorHandling(async (request) => {
    await requireBearerToken(request);
    const config = getConfig();
    const input = await readJsonBody(request, countsBodySchema({ retentionDays: config.violations.retentionDays }), { maxBytes: MAX_COUNTS_BODY_BYTES });
    const result = await ingestCounts(getDb(), input);
    return Response.json(result, { headers: { "cache-control": "no-store" } });
  }),
);
