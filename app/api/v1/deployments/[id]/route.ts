import { requireBearerToken } from "@/lib/auth/require-bearer-token";
import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { updateDeploymentSchema } from "@/lib/deployments/deployment-schema";
import { getDeployment } from "@/lib/deployments/get-deployment";
import { updateDeployment } from "@/lib/deployments/update-deployment";
import { MAX_DEPLOYMENT_BODY_BYTES } from "@/lib/ingest/limits";
import { readJsonBody } from "@/lib/http/parse-input";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

/** GET /api/v1/deployments/{id}: by Baton id (digits) or the client's own id. */
export const GET = withErrorHandling(async (_request, context: Context) => {
  const { id } = await context.params;
  return Response.json(await getDeployment(getDb(), id), { headers: { "cache-control": "no-store" } });
});

/** PATCH /api/v1/deployments/{id}: changes the fields given; null clears an optional one. */
export const PATCH = withErrorHandling(async (request, context: Context) => {
  await requireBearerToken(request);
  const { id } = await context.params;
  const patch = await readJsonBody(request, updateDeploymentSchema, { maxBytes: MAX_DEPLOYMENT_BODY_BYTES });
  return Response.json(await updateDeployment(getDb(), id, patch));
});
