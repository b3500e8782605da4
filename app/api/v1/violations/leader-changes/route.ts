import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { listLeaderChangeMarkers } from "@/lib/violations/queries/list-leader-change-markers";
import { leaderChangeParamsSchema, parseQuery } from "@/lib/violations/queries/read-params";

export const dynamic = "force-dynamic";

/** GET /api/v1/violations/leader-changes?range=|from=&to=&tz=&subscription=: leader changes in the chart's buckets. */
export const GET = withErrorHandling(async (request) => {
  const query = parseQuery(leaderChangeParamsSchema, request.url);
  const markers = await listLeaderChangeMarkers(getDb(), query);
  return Response.json(markers, { headers: { "cache-control": "no-store" } });
});
