import "server-only";

import packageJson from "@/package.json";
import { classifyRequest } from "@/lib/auth/access-rules";
import { SESSION_COOKIE } from "@/lib/auth/session-cookie";
import { type JsonSchema, toComponentSchemas } from "@/lib/openapi/json-schema";
import { listOperations } from "@/lib/openapi/list-operations";
import type { OperationSpec } from "@/lib/openapi/operation-types";
import { requestComponents, responseComponents } from "@/lib/openapi/schema-registries";
import { schemaReference } from "@/lib/openapi/schema-reference";
import { toParameters } from "@/lib/openapi/to-parameters";
import { toResponses } from "@/lib/openapi/to-responses";

export type OpenApiDocument = {
  openapi: "3.1.0";
  info: Record<string, unknown>;
  jsonSchemaDialect: string;
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, unknown> };
};

const SECURITY_SCHEME = "bearerToken";
const SESSION_SCHEME = "sessionCookie";

/**
 * Who may call an operation, by the access rules proxy.ts applies (lib/auth/access-rules.ts):
 * writes need an ingest-scoped token in every mode; reads need a read-scoped token or a
 * signed-in session once access control is configured, and nothing in open mode (the empty
 * requirement); public routes need nothing.
 */
function securityOf(operation: OperationSpec): Record<string, string[]>[] | null {
  const rule = classifyRequest(operation.method, operation.path);
  if (rule === "public") return null;
  if (rule === "ingest" || operation.isAuthenticated) return [{ [SECURITY_SCHEME]: [] }];
  return [{ [SECURITY_SCHEME]: [] }, { [SESSION_SCHEME]: [] }, {}];
}

const TAGS = [
  { name: "Ingest", description: "Counter events from the services that process events exclusively. Needs a bearer token." },
  { name: "Deployments", description: "The rollouts that explain violations. Writing needs an ingest-scoped bearer token; reading is as any read." },
  { name: "Read", description: "The leaders board, subscriptions' timelines and changes, consumers." },
  { name: "Violations", description: "Mutual-exclusivity violations, classified against deployments." },
  { name: "Health", description: "Baton itself." },
];

const DESCRIPTION = [
  "Who holds the baton, and did two hands ever hold it at once? Baton's HTTP API: ingest of counter events and deployments, and the read API its pages use.",
  'Errors always have the shape `{ "error": { "code", "message", "details"? } }`. Writes need `Authorization: Bearer bat_…` with the ingest scope (create one with `npm run token:create`). Reads need nothing while Baton runs open (no access control configured); once it is configured they need a read-scoped token or a signed-in session, and answer 401 without one. `/api/health` and this document are public.',
  "Request schemas are generated from the zod schemas the routes validate with; rules JSON Schema cannot state (cross-field checks, time windows relative to now) are in the descriptions. No string may contain NUL or an unpaired UTF-16 surrogate (PostgreSQL cannot store them).",
].join("\n\n");

function toRequestBody(body: NonNullable<OperationSpec["body"]>): Record<string, unknown> {
  const schema = schemaReference(body.schema, requestComponents, "input");
  const content: Record<string, unknown> = { "application/json": { schema, examples: body.examples } };
  if (body.ndjsonExamples) {
    const ndjson = {
      schema: { type: "string", description: "One JSON object per line; blank lines and \\r\\n endings are fine." },
      examples: body.ndjsonExamples,
    };
    content["application/x-ndjson"] = ndjson;
    content["application/ndjson"] = ndjson;
  }
  return { required: body.isRequired, ...(body.description ? { description: body.description } : {}), content };
}

function toOperationObject(spec: OperationSpec): Record<string, unknown> {
  const security = securityOf(spec);
  // A read the proxy guards answers 401 once access control is configured.
  const isGuardedRead = security !== null && !spec.isAuthenticated;
  const operation = isGuardedRead && !spec.errors.includes("unauthenticated") ? { ...spec, errors: [...spec.errors, "unauthenticated" as const] } : spec;
  const parameters = toParameters(operation);
  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    ...(security !== null ? { security } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body ? { requestBody: toRequestBody(operation.body) } : {}),
    responses: toResponses(operation),
  };
}

function mergeComponents(request: Record<string, JsonSchema>, response: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const clash = Object.keys(request).find((id) => Object.hasOwn(response, id));
  if (clash) throw new Error(`The API document has two schemas named ${clash}: a request and a response component.`);
  return { ...request, ...response };
}

/**
 * The OpenAPI 3.1 document of every route under app/api/, built from the operations' specs:
 * request schemas from the routes' own zod schemas (their input side), responses from
 * lib/openapi/responses. Examples' times are relative to `nowMs`.
 */
export function buildOpenApiDocument(nowMs: number): OpenApiDocument {
  const paths: OpenApiDocument["paths"] = {};
  for (const operation of listOperations(nowMs)) {
    paths[operation.path] ??= {};
    paths[operation.path]![operation.method] = toOperationObject(operation);
  }
  return {
    openapi: "3.1.0",
    info: { title: "Baton", version: packageJson.version, description: DESCRIPTION },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    tags: TAGS,
    paths,
    components: {
      schemas: mergeComponents(toComponentSchemas(requestComponents, "input"), toComponentSchemas(responseComponents, "output")),
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "bat_ followed by 43 base64url characters",
          description: "An API token from `npm run token:create`, with the scope the operation needs: `ingest` for writes, `read` for reads.",
        },
        [SESSION_SCHEME]: {
          type: "apiKey",
          in: "cookie",
          name: SESSION_COOKIE,
          description: "The session cookie of a browser signed in through OpenID Connect (see the README's Access control).",
        },
      },
    },
  };
}
