import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { getViolationCauses } from "@/lib/violations/queries/get-violation-causes";
import { causeParamsSchema, parseQuery } from "@/lib/violations/queries/read-params";

export const dynamic = "force-dynamic";

/** GET /api/v1/violations/causes?range=|from=&to=&service=&subscription=&cause=&limit=: the latest violations with their causes and keys' owners, counted per cause. */
export const GET = withErrorHandling(async (request) => {
  const query = parseQuery(causeParamsSchema, request.url);
  const { drilldownWindowMs, deploymentGraceMs, producerRouting } = getConfig().violations;
  const causes = await getViolationCauses(getDb(), query, { windowMs: drilldownWindowMs, graceMs: deploymentGraceMs, producerRouting });
  return Response.json(causes, { headers: { "cache-control": "no-store" } });
});
