import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { listAnnotations } from "@/lib/annotations/list-annotations";
import { withErrorHandling } from "@/lib/http/route-handler";
import { annotationsParamsSchema, assertConfiguredCluster, parseReadParams } from "@/lib/http/read-api-params";

export const dynamic = "force-dynamic";

/** GET /api/v1/annotations?kind=changes|deployments&from=&to=&cluster=&service=&limit=: Grafana annotations, newest first. */
export const GET = withErrorHandling(async (request) => {
  const params = parseReadParams(annotationsParamsSchema, request.url);
  const clusterNames = getConfig().clusters.map((c) => c.name);
  assertConfiguredCluster(clusterNames, params.cluster);
  const annotations = await listAnnotations(getDb(), params, clusterNames);
  return Response.json(annotations, { headers: { "cache-control": "no-store" } });
});
