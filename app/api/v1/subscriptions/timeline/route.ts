import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { getSubscriptionTimeline } from "@/lib/subscriptions/get-subscription-timeline";
import { assertConfiguredCluster, parseReadParams, timelineParamsSchema } from "@/lib/http/read-api-params";

export const dynamic = "force-dynamic";

/** GET /api/v1/subscriptions/timeline?cluster=&topic=&subscription=&from=&to=&deployments=: lanes, markers, bands. */
export const GET = withErrorHandling(async (request) => {
  const params = parseReadParams(timelineParamsSchema, request.url);
  const config = getConfig();
  assertConfiguredCluster(
    config.clusters.map((c) => c.name),
    params.cluster,
  );
  const timeline = await getSubscriptionTimeline(getDb(), { ...params, thresholds: config.board });
  return Response.json(timeline, { headers: { "cache-control": "no-store" } });
});
