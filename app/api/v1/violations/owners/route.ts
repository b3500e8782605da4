import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { getViolationOwners } from "@/lib/violations/queries/get-violation-owners";
import { ownerParamsSchema, parseQuery } from "@/lib/violations/queries/read-params";

export const dynamic = "force-dynamic";

/** GET /api/v1/violations/owners?range=|from=&to=&service=&subscription=&group=&limit=: the latest violations with their keys' owners, grouped. */
export const GET = withErrorHandling(async (request) => {
  const query = parseQuery(ownerParamsSchema, request.url);
  const { drilldownWindowMs, producerRouting } = getConfig().violations;
  const owners = await getViolationOwners(getDb(), query, { windowMs: drilldownWindowMs, producerRouting });
  return Response.json(owners, { headers: { "cache-control": "no-store" } });
});
