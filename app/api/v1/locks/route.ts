import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { listLocks } from "@/lib/locks/list-locks";
import { assertConfiguredCluster, locksParamsSchema, parseReadParams } from "@/lib/http/read-api-params";

export const dynamic = "force-dynamic";

/** GET /api/v1/locks?cluster=&kind=&pattern=&q=&includeGone=: every lock in scope, judged by the lock rules. */
export const GET = withErrorHandling(async (request) => {
  const query = parseReadParams(locksParamsSchema, request.url);
  const config = getConfig();
  const clusterNames = config.clusters.map((c) => c.name);
  assertConfiguredCluster(clusterNames, query.cluster);
  const board = await listLocks(getDb(), { clusterNames, thresholds: config.board, query });
  return Response.json(board, { headers: { "cache-control": "no-store" } });
});
