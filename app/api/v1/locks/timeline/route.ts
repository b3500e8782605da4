import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { getLockTimeline, type LockRef } from "@/lib/locks/get-lock-timeline";
import { assertConfiguredCluster, lockTimelineParamsSchema, parseReadParams } from "@/lib/http/read-api-params";

export const dynamic = "force-dynamic";

/** GET /api/v1/locks/timeline?cluster=&key= (or &pattern=)&from=&to=&deployments=: a lane per lock, markers, bands. */
export const GET = withErrorHandling(async (request) => {
  const { key, pattern, ...params } = parseReadParams(lockTimelineParamsSchema, request.url);
  const config = getConfig();
  assertConfiguredCluster(
    config.clusters.map((c) => c.name),
    params.cluster,
  );
  const ref: LockRef = key !== null ? { cluster: params.cluster, key } : { cluster: params.cluster, pattern: pattern! };
  const timeline = await getLockTimeline(getDb(), { ...params, ...ref, thresholds: config.board });
  return Response.json(timeline, { headers: { "cache-control": "no-store" } });
});
