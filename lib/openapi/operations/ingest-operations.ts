import "server-only";

import { counterEventsBodySchema } from "@/lib/openapi/counter-event-schema";
import { JSON_BODY_ERRORS, TOKEN_ERRORS } from "@/lib/openapi/error-codes";
import type { OperationSpec } from "@/lib/openapi/operation-types";
import { deploymentIdParameter } from "@/lib/openapi/operations/deployment-id-parameter";
import { createDeploymentSchema, finishDeploymentSchema, updateDeploymentSchema } from "@/lib/openapi/request-schemas";
import { listDeploymentsQuerySchema } from "@/lib/deployments/deployment-schema";
import { countsBodySchema } from "@/lib/ingest/counts/counts-schema";
import { countsResponseSchema, deploymentListSchema, deploymentSchema, ingestResponseSchema } from "@/lib/openapi/responses/ingest-schemas";

/** The documented retention of the examples' checks: BATON_RETENTION_DAYS' default. */
const DEFAULT_RETENTION_DAYS = 30;

// The ingest API: counter events and deployments. Examples carry times relative to `nowMs`
// (the moment the document is built): the routes refuse events from beyond the retention and a
// day ahead of the clock, so a fixed instant would turn invalid.

const HOUR_MS = 3_600_000;

function exampleEvents(nowMs: number) {
  const enteredAt = nowMs - 5 * 60_000;
  return [
    {
      id: "0b7f6c7e-3d1e-4a53-9b9a-1f0f3f0f6a11",
      key: "order-1234",
      counter: 0,
      service: "orders",
      worker: "orders-7d9f-0",
      topic: "persistent://shop/orders/payments",
      subscription: "payments-processor",
      partition: 3,
      observedAt: new Date(enteredAt).toISOString(),
    },
    {
      id: "5c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f",
      key: "order-1234",
      counter: 1,
      service: "orders",
      worker: "orders-7d9f-1",
      topic: "persistent://shop/orders/payments",
      subscription: "payments-processor",
      partition: 3,
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      observedAt: enteredAt + 850,
      attributes: { region: "eu-west-1" },
      othersInside: [{ worker: "orders-7d9f-0", enteredAt: new Date(enteredAt).toISOString() }],
    },
  ];
}

function exampleCounts(nowMs: number) {
  const minute = Math.floor(nowMs / 60_000) * 60_000 - 60_000;
  return {
    clientId: "0f6d1f9e-8a0b-4f63-9a7c-2b9e5d3c4a10",
    service: "orders",
    worker: "orders-7d9f-0",
    mode: "violations+counts",
    minute: new Date(minute).toISOString(),
    counts: [
      { subscription: "payments-processor", topic: "persistent://shop/orders/payments", increments: 4_180 },
      { subscription: "refunds", topic: "persistent://shop/orders/refunds", increments: 0 },
    ],
  };
}

export function ingestOperations(nowMs: number): OperationSpec[] {
  const events = exampleEvents(nowMs);
  return [
    {
      path: "/api/v1/exclusivity-events",
      method: "post",
      operationId: "postExclusivityEvents",
      tag: "Ingest",
      summary: "Report counter events",
      description:
        "One event or thousands per request (at most BATON_INGEST_MAX_EVENTS, default 10,000, in at most BATON_INGEST_MAX_BODY_BYTES, default 16 MiB), as a JSON array, one JSON object, or NDJSON; UTF-8, uncompressed. Each event is validated on its own: the answer is 200 with counts also when some were rejected, each with its index, field and reason. Re-sending an event (the same id and observedAt) writes nothing new.",
      isAuthenticated: true,
      body: {
        schema: counterEventsBodySchema,
        isRequired: true,
        examples: {
          batch: { summary: "Two workers inside one key: the second event is a violation", value: events },
          single: { summary: "One event", value: events[0] },
        },
        ndjsonExamples: { batch: { summary: "The same two events, one per line", value: `${events.map((event) => JSON.stringify(event)).join("\n")}\n` } },
      },
      responses: [{ status: 200, description: "What was written, what was a duplicate, and each rejected event.", schema: ingestResponseSchema }],
      errors: [
        ...TOKEN_ERRORS,
        "invalid_json",
        "invalid_ndjson",
        "invalid_encoding",
        "payload_too_large",
        "too_many_events",
        "unsupported_media_type",
        "unsupported_content_encoding",
      ],
    },
    {
      path: "/api/v1/exclusivity-counts",
      method: "post",
      operationId: "postExclusivityCounts",
      tag: "Ingest",
      summary: "Report a minute of increments (violations+counts mode)",
      description:
        "In the violations+counts reporting mode a client sends each violation as an event and every other increment only as per-minute counts per subscription and topic. One body is one client's finished minute (the start of a UTC minute, within the retention, at most a day ahead). Idempotent per client, minute, service, subscription and topic: a re-sent minute writes nothing (`duplicates`).",
      isAuthenticated: true,
      body: {
        schema: countsBodySchema({ retentionDays: DEFAULT_RETENTION_DAYS }),
        isRequired: true,
        examples: { minute: { summary: "One client's last minute, two groups", value: exampleCounts(nowMs) } },
      },
      responses: [{ status: 200, description: "Groups written now, and groups already stored for that client and minute.", schema: countsResponseSchema }],
      errors: [...TOKEN_ERRORS, ...JSON_BODY_ERRORS],
    },
    {
      path: "/api/v1/deployments",
      method: "post",
      operationId: "createDeployment",
      tag: "Deployments",
      summary: "Record a deployment",
      description:
        "201 with the new deployment; 200 with the stored one when its `id` was posted before (with the same service, version and environment; else 409). `startedAt` defaults to now; `finishedAt` must not be before it.",
      isAuthenticated: true,
      body: {
        schema: createDeploymentSchema,
        isRequired: true,
        examples: {
          start: {
            summary: "At the start of the rollout",
            value: {
              id: "orders-2026.11.3-production",
              service: "orders",
              version: "2026.11.3",
              environment: "production",
              startedAt: new Date(nowMs - HOUR_MS).toISOString(),
              link: "https://ci.example.com/pipelines/8812",
            },
          },
          finished: {
            summary: "Posted once, after the rollout",
            value: { service: "orders", version: "2026.11.3", startedAt: nowMs - HOUR_MS, finishedAt: nowMs - HOUR_MS / 2, attributes: { commit: "9f3c2ab" } },
          },
        },
      },
      responses: [
        { status: 201, description: "Recorded.", schema: deploymentSchema },
        { status: 200, description: "Its `id` was posted before: the stored deployment, updated with the fields sent.", schema: deploymentSchema },
      ],
      errors: [...TOKEN_ERRORS, ...JSON_BODY_ERRORS, "deployment_conflict"],
    },
    {
      path: "/api/v1/deployments",
      method: "get",
      operationId: "listDeployments",
      tag: "Deployments",
      summary: "List deployments",
      description: "Deployments that started in [from, to), newest first. No token needed.",
      query: {
        schema: listDeploymentsQuerySchema,
        examples: {
          service: { summary: "One service's latest", value: { service: "orders", environment: "production", limit: "20" } },
          lastWeek: { summary: "A week", value: { from: new Date(nowMs - 7 * 24 * HOUR_MS).toISOString(), to: String(nowMs) } },
        },
      },
      responses: [{ status: 200, description: "Newest first.", schema: deploymentListSchema }],
      errors: ["invalid_request"],
    },
    {
      path: "/api/v1/deployments/{id}",
      method: "get",
      operationId: "getDeployment",
      tag: "Deployments",
      summary: "One deployment",
      description: "No token needed.",
      pathParameters: [deploymentIdParameter],
      responses: [{ status: 200, description: "The deployment.", schema: deploymentSchema }],
      errors: ["deployment_not_found"],
    },
    {
      path: "/api/v1/deployments/{id}",
      method: "patch",
      operationId: "updateDeployment",
      tag: "Deployments",
      summary: "Change a deployment",
      description: "Changes the fields given; null clears an optional one. `finishedAt` must not be before `startedAt`.",
      isAuthenticated: true,
      pathParameters: [deploymentIdParameter],
      body: {
        schema: updateDeploymentSchema,
        isRequired: true,
        examples: {
          link: { summary: "Add the pipeline link", value: { link: "https://ci.example.com/pipelines/8812" } },
          reopen: { summary: "Mark it in progress again", value: { finishedAt: null, description: "Rolled back, rolling out again" } },
        },
      },
      responses: [{ status: 200, description: "The changed deployment.", schema: deploymentSchema }],
      errors: [...TOKEN_ERRORS, ...JSON_BODY_ERRORS, "deployment_not_found"],
    },
    {
      path: "/api/v1/deployments/{id}/finish",
      method: "post",
      operationId: "finishDeployment",
      tag: "Deployments",
      summary: "Finish a deployment",
      description:
        "Marks an open deployment finished, now or at `finishedAt`. The body may be empty (then without Content-Type). A finished deployment stays as it is: 409.",
      isAuthenticated: true,
      pathParameters: [deploymentIdParameter],
      body: {
        schema: finishDeploymentSchema,
        isRequired: false,
        examples: {
          now: { summary: "Finished now", value: {} },
          at: { summary: "Finished at a given time", value: { finishedAt: new Date(nowMs - 60_000).toISOString() } },
        },
      },
      responses: [{ status: 200, description: "The finished deployment.", schema: deploymentSchema }],
      errors: [...TOKEN_ERRORS, ...JSON_BODY_ERRORS, "deployment_not_found", "deployment_already_finished"],
    },
  ];
}
