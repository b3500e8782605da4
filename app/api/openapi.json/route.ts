import { withErrorHandling } from "@/lib/http/route-handler";
import { getOpenApiDocument } from "@/lib/openapi/get-openapi-document";

export const dynamic = "force-dynamic";

/**
 * GET /api/openapi.json: the OpenAPI 3.1 description of every route under /api (about 80 KB).
 * Next compresses it for clients that accept gzip (next.config.js); a route handler never sets
 * Content-Encoding itself, because `next start` drops that header and the body would arrive
 * unlabelled.
 */
export const GET = withErrorHandling(async () => {
  return Response.json(getOpenApiDocument(), { headers: { "cache-control": "public, max-age=300" } });
});
