import "server-only";

import { buildOpenApiDocument, type OpenApiDocument } from "@/lib/openapi/build-openapi-document";

let built: OpenApiDocument | undefined;

/**
 * The API document, built on first use and kept: the schemas do not change while the process
 * runs. Its examples' times are relative to that first use.
 */
export function getOpenApiDocument(): OpenApiDocument {
  built ??= buildOpenApiDocument(Date.now());
  return built;
}
