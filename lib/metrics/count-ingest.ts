import "server-only";

import { getProcessMetrics } from "@/lib/metrics/process-registry";

type Handler<Ctx> = (request: Request, context: Ctx) => Promise<Response>;

const ITEM_RESULTS = [
  ["accepted", "accepted"],
  ["duplicates", "duplicate"],
  ["rejected", "rejected"],
] as const;

/**
 * Counts an ingest route's requests by status and, from its 200 answer ({ accepted,
 * duplicates, rejected }), its items by result, in this process's registry. Wraps the route's
 * exported handler, so the route itself stays as it is.
 */
export function countIngest<Ctx>(route: string, handler: Handler<Ctx>): Handler<Ctx> {
  return async (request, context) => {
    const response = await handler(request, context);
    const metrics = getProcessMetrics();
    metrics.ingestRequests.inc({ route, status: String(response.status) });
    if (response.ok) {
      const body = (await response.clone().json()) as Record<string, unknown>;
      for (const [field, result] of ITEM_RESULTS) {
        const count = body[field];
        if (typeof count === "number" && count > 0) metrics.ingestItems.inc({ route, result }, count);
      }
    }
    return response;
  };
}
