import { describe, expect, it } from "vitest";
import type { z } from "zod";

import { ApiError } from "@/lib/http/api-error";
import { parseWithSchema } from "@/lib/http/parse-input";
import { readEventsBody } from "@/lib/ingest/parse-events-body";
import { validateEvents } from "@/lib/ingest/validate-events";
import { buildOpenApiDocument } from "@/lib/openapi/build-openapi-document";
import { listOperations } from "@/lib/openapi/list-operations";
import type { OperationSpec } from "@/lib/openapi/operation-types";

// Every documented example goes through the schema the route parses with (for events, the
// real validator the route runs), read back from the document as a client sees it; a bad
// variant of each must fail, naming the field at fault. Times in examples are relative to now.

const nowMs = Date.now();
const document = buildOpenApiDocument(nowMs);
const operations = listOperations(nowMs);
const RULES = { retentionDays: 30 };
const LIMITS = { maxBodyBytes: 16 * 1024 * 1024, maxEventsPerRequest: 10_000 };

type DocumentedParameter = { name: string; in: string; examples?: Record<string, { value: string | number }> };
type DocumentedOperation = {
  parameters?: DocumentedParameter[];
  requestBody?: { content: Record<string, { examples: Record<string, { value: unknown }> }> };
};

function documentedOperation(operation: OperationSpec): DocumentedOperation {
  return document.paths[operation.path]![operation.method] as DocumentedOperation;
}

/** One named query example as a request sends it: every parameter the schema parses, as a string. */
function queryExampleFromDocument(operation: OperationSpec, exampleName: string): Record<string, string> {
  const unparsed = new Set((operation.pathParameters ?? []).map((parameter) => parameter.name));
  const query: Record<string, string> = {};
  for (const parameter of documentedOperation(operation).parameters ?? []) {
    const example = parameter.examples?.[exampleName];
    if (example !== undefined && !unparsed.has(parameter.name)) query[parameter.name] = String(example.value);
  }
  return query;
}

function bodyExamplesFromDocument(operation: OperationSpec, mediaType: string): [string, unknown][] {
  return Object.entries(documentedOperation(operation).requestBody?.content[mediaType]?.examples ?? {}).map(([name, example]) => [name, example.value]);
}

/** The field a 400 names, from the same parser the routes' errors come from. */
function fieldRefused(schema: z.ZodType, input: unknown): string | null {
  try {
    parseWithSchema(schema, input, "The input");
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    expect(error.status).toBe(400);
    return (error.details as { issues: { field: string | null }[] }).issues[0]!.field;
  }
  return null;
}

/** For each operation that takes a query or a body: a change that must be refused, and the field named. */
const BAD_VARIANTS: Record<string, { change: Record<string, unknown>; field: string }> = {
  getLeaders: { change: { includeGone: "yes" }, field: "includeGone" },
  getSubscriptionTimeline: { change: { topic: "payments" }, field: "topic" },
  listSubscriptionChanges: { change: { limit: "0" }, field: "limit" },
  getConsumer: { change: { cursor: "page-2" }, field: "cursor" },
  listLocks: { change: { kind: "mysql" }, field: "kind" },
  listAlerts: { change: { state: "open" }, field: "state" },
  getLockTimeline: { change: { deployments: "some" }, field: "deployments" },
  listLockChanges: { change: { limit: "0" }, field: "limit" },
  listDeployments: { change: { limit: "many" }, field: "limit" },
  getViolationTimeline: { change: { tz: "Mars/Olympus_Mons" }, field: "tz" },
  getTopViolations: { change: { ranking: "best" }, field: "ranking" },
  getKeyDrilldown: { change: { key: "   " }, field: "key" },
  getEventDrilldown: { change: { id: "" }, field: "id" },
  listLeaderChangeMarkers: { change: { range: "2d" }, field: "range" },
  listViolationCauses: { change: { cause: "sideways" }, field: "cause" },
  listDeploymentCoincidences: { change: { limit: "501" }, field: "limit" },
  getDeploymentViolations: { change: { service: "orders" }, field: "service" },
  createDeployment: { change: { version: "" }, field: "version" },
  updateDeployment: { change: { link: "ftp://ci.example.com/8812" }, field: "link" },
  finishDeployment: { change: { finishedAt: "yesterday" }, field: "finishedAt" },
  postExclusivityEvents: { change: { counter: -1 }, field: "counter" },
  postExclusivityCounts: { change: { mode: "all" }, field: "mode" },
  listAnnotations: { change: { kind: "alerts" }, field: "kind" },
};

const withQuery = operations.filter((operation) => operation.query);
const withJsonBody = operations.filter((operation) => operation.body && operation.operationId !== "postExclusivityEvents");
const eventsOperation = operations.find((operation) => operation.operationId === "postExclusivityEvents")!;

describe("documented examples", () => {
  it("covers every operation that takes a query or a body with a bad variant", () => {
    const taking = operations.filter((operation) => operation.query || operation.body).map((operation) => operation.operationId);
    expect(Object.keys(BAD_VARIANTS).sort()).toEqual([...new Set(taking)].sort());
  });

  it.each(withQuery.map((operation) => [operation.operationId, operation] as const))(
    "%s: every query example validates, and its bad variant names the field",
    (_id, operation) => {
      const names = Object.keys(operation.query!.examples);
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) {
        const query = queryExampleFromDocument(operation, name);
        expect(query).toEqual(operation.query!.examples[name]!.value);
        expect(fieldRefused(operation.query!.schema, query)).toBeNull();
        const bad = BAD_VARIANTS[operation.operationId]!;
        expect(fieldRefused(operation.query!.schema, { ...query, ...bad.change })).toBe(bad.field);
      }
    },
  );

  it.each(withJsonBody.map((operation) => [operation.operationId, operation] as const))(
    "%s: every body example validates, and its bad variant names the field",
    (_id, operation) => {
      const examples = bodyExamplesFromDocument(operation, "application/json");
      expect(examples.length).toBeGreaterThan(0);
      for (const [, value] of examples) {
        expect(fieldRefused(operation.body!.schema, value)).toBeNull();
        const bad = BAD_VARIANTS[operation.operationId]!;
        expect(fieldRefused(operation.body!.schema, { ...(value as object), ...bad.change })).toBe(bad.field);
      }
    },
  );

  it("postExclusivityEvents: every JSON example passes the route's validator and the documented schema", () => {
    const examples = bodyExamplesFromDocument(eventsOperation, "application/json");
    expect(examples.length).toBeGreaterThan(0);
    for (const [, value] of examples) {
      const items = Array.isArray(value) ? value : [value];
      expect(validateEvents(items, RULES)).toMatchObject({ rejected: [], duplicatesInBatch: 0 });
      expect(validateEvents(items, RULES).events).toHaveLength(items.length);
      expect(fieldRefused(eventsOperation.body!.schema, value)).toBeNull();
    }
  });

  it("postExclusivityEvents: a bad variant of each event is rejected, naming the field", () => {
    const bad = BAD_VARIANTS.postExclusivityEvents!;
    for (const [, value] of bodyExamplesFromDocument(eventsOperation, "application/json")) {
      const items = (Array.isArray(value) ? value : [value]).map((item) => ({ ...(item as object), ...bad.change }));
      expect(validateEvents(items, RULES).rejected).toEqual(items.map((_item, index) => ({ index, field: bad.field, message: "must be 0 or more" })));
    }
  });

  it.each(["application/x-ndjson", "application/ndjson"])(
    "postExclusivityEvents: every %s example is read and validated as the route does",
    async (mediaType) => {
      const examples = bodyExamplesFromDocument(eventsOperation, mediaType);
      expect(examples.length).toBeGreaterThan(0);
      for (const [, value] of examples) {
        const request = new Request("http://baton.test/api/v1/exclusivity-events", {
          method: "POST",
          headers: { "content-type": mediaType },
          body: value as string,
        });
        const items = await readEventsBody(request, LIMITS);
        expect(items.length).toBeGreaterThan(0);
        expect(validateEvents(items, RULES)).toMatchObject({ rejected: [], duplicatesInBatch: 0 });
      }
    },
  );

  it("gives every path parameter an example", () => {
    for (const operation of operations) {
      for (const parameter of documentedOperation(operation).parameters ?? []) {
        if (parameter.in === "path")
          expect({ operation: operation.operationId, examples: Object.keys(parameter.examples ?? {}).length > 0 }).toEqual({
            operation: operation.operationId,
            examples: true,
          });
      }
    }
  });
});
