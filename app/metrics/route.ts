import { getDb } from "@/lib/db/client";
import { withErrorHandling } from "@/lib/http/route-handler";
import { renderScrape } from "@/lib/metrics/render-scrape";

export const dynamic = "force-dynamic";

/** GET /metrics: Prometheus text exposition (docs/metrics.md). */
export const GET = withErrorHandling(async () => {
  const { text, contentType } = await renderScrape(getDb());
  return new Response(text, { headers: { "content-type": contentType, "cache-control": "no-store" } });
});
