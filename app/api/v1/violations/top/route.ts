import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { getTopViolations } from "@/lib/violations/queries/get-top-violations";
import { parseQuery, topParamsSchema } from "@/lib/violations/queries/read-params";

export const dynamic = "force-dynamic";

/** GET /api/v1/violations/top?range=|from=&to=&service=&subscription=&environment=&limit=&ranking=&lists=: top keys, workers, services, subscriptions. */
export const GET = withErrorHandling(async (request) => {
  const query = parseQuery(topParamsSchema, request.url);
  const top = await getTopViolations(getDb(), { ...query, graceMs: getConfig().violations.deploymentGraceMs });
  return Response.json(top, { headers: { "cache-control": "no-store" } });
});
