import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { listDeploymentCoincidences } from "@/lib/violations/queries/list-deployment-coincidences";
import { deploymentParamsSchema, parseQuery } from "@/lib/violations/queries/read-params";

export const dynamic = "force-dynamic";

/** GET /api/v1/violations/deployments?range=|from=&to=&service=&environment=&limit=: deployments with the violations each coincided with. */
export const GET = withErrorHandling(async (request) => {
  const query = parseQuery(deploymentParamsSchema, request.url);
  const list = await listDeploymentCoincidences(getDb(), { ...query, graceMs: getConfig().violations.deploymentGraceMs });
  return Response.json(list, { headers: { "cache-control": "no-store" } });
});
