import { alertsParamsSchema } from "@/lib/alerts/alerts-params";
import { listAlerts } from "@/lib/alerts/list-alerts";
import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { parseReadParams } from "@/lib/http/read-api-params";

export const dynamic = "force-dynamic";

/** GET /api/v1/alerts?state=&rule=&cluster=&resource=&subscription=&service=&from=&to=&limit=: alerts with their state history, firing first. */
export const GET = withErrorHandling(async (request) => {
  const query = parseReadParams(alertsParamsSchema, request.url);
  return Response.json(await listAlerts(getDb(), query), { headers: { "cache-control": "no-store" } });
});
