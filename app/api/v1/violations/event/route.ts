import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { drilldownSettings } from "@/lib/violations/queries/drilldown-settings";
import { getEventDrilldown } from "@/lib/violations/queries/get-key-drilldown";
import { eventParamsSchema, parseQuery } from "@/lib/violations/queries/read-params";

export const dynamic = "force-dynamic";

/** GET /api/v1/violations/event?id=&at=: one event's drill-down (its key around it); 404 for an unknown id. */
export const GET = withErrorHandling(async (request) => {
  const query = parseQuery(eventParamsSchema, request.url);
  const drilldown = await getEventDrilldown(getDb(), { eventId: query.id, atMs: query.atMs }, drilldownSettings());
  return Response.json(drilldown, { headers: { "cache-control": "no-store" } });
});
