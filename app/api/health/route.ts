import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { checkHealth } from "@/lib/health/check-health";
import { withErrorHandling } from "@/lib/http/route-handler";

export const dynamic = "force-dynamic";

/** GET /api/health: the database and each configured cluster, ok / degraded / down. */
export const GET = withErrorHandling(async () => {
  const report = await checkHealth(getConfig(), getDb());
  return Response.json(report, { status: report.status === "down" ? 503 : 200, headers: { "cache-control": "no-store" } });
});
