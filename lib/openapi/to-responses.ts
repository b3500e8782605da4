import "server-only";

import { ERROR_CODES, type ErrorCode } from "@/lib/openapi/error-codes";
import type { OperationSpec } from "@/lib/openapi/operation-types";
import { errorBodySchema } from "@/lib/openapi/responses/shared-schemas";
import { responseComponents } from "@/lib/openapi/schema-registries";
import { schemaReference } from "@/lib/openapi/schema-reference";

type ResponseObject = { description: string; headers?: Record<string, unknown>; content: Record<string, { schema: Record<string, unknown> }> };

const ERROR_HEADERS: Partial<Record<number, Record<string, unknown>>> = {
  401: {
    "WWW-Authenticate": {
      description: 'Bearer realm="baton", with error="invalid_token" or error="invalid_request" when a token was sent.',
      schema: { type: "string" },
    },
  },
  503: { "Retry-After": { description: "Seconds to wait before sending the same request again.", schema: { type: "integer" } } },
};

/** The error responses of an operation: its codes (and `internal`) grouped by status. */
function errorResponses(codes: readonly ErrorCode[]): Record<string, ResponseObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...codes, "internal" as const]) {
    const { status } = ERROR_CODES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, ResponseObject> = {};
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers = ERROR_HEADERS[status];
    responses[String(status)] = {
      description: statusCodes.map((code) => `\`${code}\`: ${ERROR_CODES[code].description}`).join("\n\n"),
      ...(headers ? { headers } : {}),
      content: { "application/json": { schema: schemaReference(errorBodySchema, responseComponents, "output") } },
    };
  }
  return responses;
}

/** Success responses (with their schemas) and error responses, by status. */
export function toResponses(operation: OperationSpec): Record<string, ResponseObject> {
  const responses: Record<string, ResponseObject> = {};
  for (const response of operation.responses) {
    responses[String(response.status)] = {
      description: response.description,
      content: { "application/json": { schema: schemaReference(response.schema, responseComponents, "output") } },
    };
  }
  return { ...responses, ...errorResponses(operation.errors) };
}
