import "server-only";

import { z } from "zod";

import type { OperationSpec } from "@/lib/openapi/operation-types";
import { changesParamsSchema, consumerParamsSchema, leadersParamsSchema, timelineParamsSchema } from "@/lib/http/read-api-params";
import {
  changePageSchema,
  consumerReportSchema,
  healthReportSchema,
  leadersBoardSchema,
  subscriptionTimelineSchema,
} from "@/lib/openapi/responses/read-schemas";

// Health, this document, and the read API of the leaders board, subscriptions and consumers.
// The examples' ranges end at `nowMs`: the routes default and bound ranges relative to now.

const CLUSTER_NOTE = "A `cluster` must name a configured cluster (BATON_CLUSTERS): another name is a 400 that lists them.";
const TOPIC = "persistent://shop/orders/payments";
const SUBSCRIPTION = "payments-processor";

export function readOperations(nowMs: number): OperationSpec[] {
  const dayAgo = new Date(nowMs - 86_400_000).toISOString();
  const now = new Date(nowMs).toISOString();
  return [
    {
      path: "/api/health",
      method: "get",
      operationId: "getHealth",
      tag: "Health",
      summary: "Baton's health",
      description: "The database and each configured cluster, each ok, degraded or down with the reason.",
      responses: [
        { status: 200, description: "Baton can serve: ok or degraded.", schema: healthReportSchema },
        { status: 503, description: "Baton's database is down (the same report).", schema: healthReportSchema },
      ],
      errors: [],
    },
    {
      path: "/api/openapi.json",
      method: "get",
      operationId: "getOpenApiDocument",
      tag: "Health",
      summary: "This document",
      description: "The OpenAPI 3.1 description of Baton's HTTP API; generate clients from it.",
      responses: [{ status: 200, description: "An OpenAPI 3.1 document.", schema: z.record(z.string(), z.unknown()) }],
      errors: [],
    },
    {
      path: "/api/v1/leaders",
      method: "get",
      operationId: "getLeaders",
      tag: "Read",
      summary: "The leaders board",
      description: `One entry per subscription with its partitions, judged by the health rules, in name order (cluster, topic, subscription). ${CLUSTER_NOTE}`,
      query: {
        schema: leadersParamsSchema,
        examples: {
          board: { summary: "Every subscription", value: {} },
          filtered: { summary: "One tenant, searched", value: { cluster: "prod-eu", tenant: "shop", q: "payments", includeGone: "true" } },
        },
      },
      responses: [{ status: 200, description: "The board.", schema: leadersBoardSchema }],
      errors: ["invalid_request"],
    },
    {
      path: "/api/v1/subscriptions/timeline",
      method: "get",
      operationId: "getSubscriptionTimeline",
      tag: "Read",
      summary: "A subscription's leader timeline",
      description: `Its partitions now, the holder lanes, change markers and deployment bands over a range (default the last 6 hours). ${CLUSTER_NOTE}`,
      query: {
        schema: timelineParamsSchema,
        examples: {
          recent: { summary: "The last 6 hours", value: { cluster: "prod-eu", topic: TOPIC, subscription: SUBSCRIPTION } },
          day: {
            summary: "A day, with every deployment",
            value: { cluster: "prod-eu", topic: TOPIC, subscription: SUBSCRIPTION, from: dayAgo, to: now, deployments: "all" },
          },
        },
      },
      responses: [{ status: 200, description: "The timeline.", schema: subscriptionTimelineSchema }],
      errors: ["invalid_request", "not_found"],
    },
    {
      path: "/api/v1/subscriptions/changes",
      method: "get",
      operationId: "listSubscriptionChanges",
      tag: "Read",
      summary: "A subscription's holder changes",
      description: `Exact changes in a range (default the last 6 hours), newest first, a page at a time. ${CLUSTER_NOTE}`,
      query: {
        schema: changesParamsSchema,
        examples: {
          recent: { summary: "The latest changes", value: { cluster: "prod-eu", topic: TOPIC, subscription: SUBSCRIPTION, limit: "50" } },
          nextPage: {
            summary: "The next page",
            value: { cluster: "prod-eu", topic: TOPIC, subscription: SUBSCRIPTION, from: dayAgo, to: now, cursor: `${nowMs - 3_600_000}_812` },
          },
        },
      },
      responses: [{ status: 200, description: "One page of changes.", schema: changePageSchema }],
      errors: ["invalid_request"],
    },
    {
      path: "/api/v1/consumers/{name}",
      method: "get",
      operationId: "getConsumer",
      tag: "Read",
      summary: "A consumer",
      description: `Where a consumer holds or stands by, and the changes that moved a hold to or from it (default the last 6 hours). ${CLUSTER_NOTE}`,
      query: {
        schema: consumerParamsSchema,
        pathParameters: ["name"],
        examples: {
          everywhere: { summary: "In every cluster", value: { name: "payments-processor-7d9f-0" } },
          oneCluster: { summary: "One cluster, a day", value: { name: "payments-processor-7d9f-0", cluster: "prod-eu", from: dayAgo, limit: "100" } },
        },
      },
      responses: [{ status: 200, description: "Its positions and history.", schema: consumerReportSchema }],
      errors: ["invalid_request"],
    },
  ];
}
