import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { getViolationTimeline } from "@/lib/violations/queries/get-violation-timeline";
import { parseQuery, timelineParamsSchema } from "@/lib/violations/queries/read-params";

export const dynamic = "force-dynamic";

/** GET /api/v1/violations/timeline?range=|from=&to=&tz=&service=&subscription=&environment=: violations per bucket, classified. */
export const GET = withErrorHandling(async (request) => {
  const query = parseQuery(timelineParamsSchema, request.url);
  const timeline = await getViolationTimeline(getDb(), { ...query, graceMs: getConfig().violations.deploymentGraceMs });
  return Response.json(timeline, { headers: { "cache-control": "no-store" } });
});
