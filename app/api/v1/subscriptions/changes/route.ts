import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { listSubscriptionChanges } from "@/lib/subscriptions/list-subscription-changes";
import { assertConfiguredCluster, changesParamsSchema, parseReadParams } from "@/lib/http/read-api-params";

export const dynamic = "force-dynamic";

/** GET /api/v1/subscriptions/changes?cluster=&topic=&subscription=&from=&to=&limit=&cursor=: exact changes, newest first. */
export const GET = withErrorHandling(async (request) => {
  const params = parseReadParams(changesParamsSchema, request.url);
  assertConfiguredCluster(
    getConfig().clusters.map((c) => c.name),
    params.cluster,
  );
  const page = await listSubscriptionChanges(getDb(), params);
  return Response.json(page, { headers: { "cache-control": "no-store" } });
});
