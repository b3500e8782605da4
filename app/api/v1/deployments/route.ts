import { requireBearerToken } from "@/lib/auth/require-bearer-token";
import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { createDeployment } from "@/lib/deployments/create-deployment";
import { createDeploymentSchema, listDeploymentsQuerySchema } from "@/lib/deployments/deployment-schema";
import { listDeployments } from "@/lib/deployments/list-deployments";
import { MAX_DEPLOYMENT_BODY_BYTES } from "@/lib/ingest/limits";
import { parseWithSchema, readJsonBody } from "@/lib/http/parse-input";

export const dynamic = "force-dynamic";

/** POST /api/v1/deployments: 201 with the new deployment, 200 when its `id` was posted before. */
export const POST = withErrorHandling(async (request) => {
  await requireBearerToken(request);
  const input = await readJsonBody(request, createDeploymentSchema, { maxBytes: MAX_DEPLOYMENT_BODY_BYTES });
  const { deployment, isCreated } = await createDeployment(getDb(), input);
  return Response.json(deployment, { status: isCreated ? 201 : 200 });
});

/** GET /api/v1/deployments?service=&environment=&from=&to=&limit=: newest first. */
export const GET = withErrorHandling(async (request) => {
  const query = parseWithSchema(listDeploymentsQuerySchema, Object.fromEntries(new URL(request.url).searchParams), "The query");
  const deployments = await listDeployments(getDb(), query);
  return Response.json({ deployments }, { headers: { "cache-control": "no-store" } });
});
