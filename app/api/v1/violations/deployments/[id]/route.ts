import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { getDeploymentViolations } from "@/lib/violations/queries/get-deployment-violations";
import { noParamsSchema, parseQuery } from "@/lib/violations/queries/read-params";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

/** GET /api/v1/violations/deployments/{id}: one deployment (Baton's id or yours) and the violations inside its window. */
export const GET = withErrorHandling(async (request, context: Context) => {
  parseQuery(noParamsSchema, request.url);
  const { id } = await context.params;
  const { deploymentGraceMs, traceUrlTemplate } = getConfig().violations;
  const detail = await getDeploymentViolations(getDb(), id, { graceMs: deploymentGraceMs, traceUrlTemplate });
  return Response.json(detail, { headers: { "cache-control": "no-store" } });
});
