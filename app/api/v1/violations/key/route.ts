import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { drilldownSettings } from "@/lib/violations/queries/drilldown-settings";
import { getKeyDrilldown } from "@/lib/violations/queries/get-key-drilldown";
import { keyParamsSchema, parseQuery } from "@/lib/violations/queries/read-params";

export const dynamic = "force-dynamic";

/** GET /api/v1/violations/key?key=&range=|from=&to=: a key's events, workers, overlaps and what coincides with each violation. */
export const GET = withErrorHandling(async (request) => {
  const query = parseQuery(keyParamsSchema, request.url);
  const drilldown = await getKeyDrilldown(getDb(), query, drilldownSettings());
  return Response.json(drilldown, { headers: { "cache-control": "no-store" } });
});
