import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { listLockChanges } from "@/lib/locks/list-lock-changes";
import { assertConfiguredCluster, lockChangesParamsSchema, parseReadParams } from "@/lib/http/read-api-params";

export const dynamic = "force-dynamic";

/** GET /api/v1/locks/changes?cluster=&key= (or &pattern=)&from=&to=&limit=&cursor=: exact changes, newest first. */
export const GET = withErrorHandling(async (request) => {
  const params = parseReadParams(lockChangesParamsSchema, request.url);
  assertConfiguredCluster(
    getConfig().clusters.map((c) => c.name),
    params.cluster,
  );
  const page = await listLockChanges(getDb(), params);
  return Response.json(page, { headers: { "cache-control": "no-store" } });
});
