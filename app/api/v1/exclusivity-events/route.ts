import { requireBearerToken } from "@/lib/auth/require-bearer-token";
import { getConfig } from "@/lib/config";
import { withErrorHandling } from "@/lib/http/route-handler";
import { ingestEvents } from "@/lib/ingest/ingest-events";
import { getIngestPool } from "@/lib/ingest/ingest-pool";
import { toIngestResponse } from "@/lib/ingest/ingest-response";
import { readEventsBody } from "@/lib/ingest/parse-events-body";
import { countIngest } from "@/lib/metrics/count-ingest";

export const dynamic = "force-dynamic";

/**
 * POST /api/v1/exclusivity-events: counter events as a JSON array (or one object) or NDJSON.
 * 200 with counts, also when some items were rejected; docs/ingest.md has every status.
 */
export const POST = countIngest(
  "events",
  withErrorHandling(async (request) => {
    await requireBearerToken(request);
    const config = getConfig();
    const items = await readEventsBody(request, config.ingest);
    const result = await ingestEvents(getIngestPool(), items, "HTTP", {
      retentionDays: config.violations.retentionDays,
      violationRetentionDays: config.violations.violationRetentionDays,
    });
    return Response.json(toIngestResponse(result), { headers: { "cache-control": "no-store" } });
  }),
);
