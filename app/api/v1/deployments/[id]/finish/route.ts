import { requireBearerToken } from "@/lib/auth/require-bearer-token";
import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { finishDeploymentSchema } from "@/lib/deployments/deployment-schema";
import { finishDeployment } from "@/lib/deployments/finish-deployment";
import { MAX_DEPLOYMENT_BODY_BYTES } from "@/lib/ingest/limits";
import { readJsonBody } from "@/lib/http/parse-input";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

/** POST /api/v1/deployments/{id}/finish: finishedAt = now, or `{ "finishedAt": ... }`. */
export const POST = withErrorHandling(async (request, context: Context) => {
  await requireBearerToken(request);
  const { id } = await context.params;
  const input = await readJsonBody(request, finishDeploymentSchema, { maxBytes: MAX_DEPLOYMENT_BODY_BYTES, isOptional: true });
  return Response.json(await finishDeployment(getDb(), id, input.finishedAt));
});
