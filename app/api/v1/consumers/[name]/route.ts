import { decodeConsumerName } from "@/lib/board/links";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { getConsumer } from "@/lib/consumers/get-consumer";
import { assertConfiguredCluster, consumerParamsSchema, parseReadParams } from "@/lib/http/read-api-params";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ name: string }> };

/** GET /api/v1/consumers/{name}?cluster=&from=&to=&limit=&cursor=: where it holds or stands by, and its changes. */
export const GET = withErrorHandling(async (request, context: Context) => {
  const { name } = await context.params;
  const params = parseReadParams(consumerParamsSchema, request.url, { name: decodeConsumerName(name) });
  const clusterNames = getConfig().clusters.map((c) => c.name);
  assertConfiguredCluster(clusterNames, params.cluster ?? null);
  const report = await getConsumer(getDb(), { ...params, cluster: params.cluster ?? null, clusterNames });
  return Response.json(report, { headers: { "cache-control": "no-store" } });
});
