import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { readLeaders } from "@/lib/subscriptions/list-leaders";
import { assertConfiguredCluster, leadersParamsSchema, parseReadParams } from "@/lib/http/read-api-params";

export const dynamic = "force-dynamic";

/** GET /api/v1/leaders?cluster=&tenant=&namespace=&topic=&subscription=&q=&includeGone=: the leaders board. */
export const GET = withErrorHandling(async (request) => {
  const query = parseReadParams(leadersParamsSchema, request.url);
  const config = getConfig();
  const clusterNames = config.clusters.map((c) => c.name);
  assertConfiguredCluster(clusterNames, query.cluster);
  const board = await readLeaders(getDb(), { clusterNames, thresholds: config.board, query });
  return Response.json(board, { headers: { "cache-control": "no-store" } });
});
