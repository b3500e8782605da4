import "server-only";

import type { OperationSpec } from "@/lib/openapi/operation-types";
import { deploymentIdParameter } from "@/lib/openapi/operations/deployment-id-parameter";
import {
  deploymentCoincidencesSchema,
  deploymentViolationsSchema,
  keyDrilldownSchema,
  leaderChangeMarkersSchema,
  topViolationsSchema,
  violationCausesSchema,
  violationTimelineSchema,
} from "@/lib/openapi/responses/violations-schemas";
import {
  deploymentParamsSchema,
  eventParamsSchema,
  keyParamsSchema,
  leaderChangeParamsSchema,
  noParamsSchema,
  causeParamsSchema,
  timelineParamsSchema,
  topParamsSchema,
} from "@/lib/violations/queries/read-params";
import { CAUSE_MEANING, VIOLATION_CAUSES } from "@/lib/violations/cause-words";

// The violations read API. Ranges are `range` (a preset ending now) or `from`/`to`; the
// examples' ranges end at `nowMs`.

const RANGE_NOTE = "Ranges are `range` or `from`/`to` (at most 31 days), default the last 24 hours.";

export function violationsOperations(nowMs: number): OperationSpec[] {
  const twoDaysAgo = new Date(nowMs - 2 * 86_400_000).toISOString();
  const now = new Date(nowMs).toISOString();
  return [
    {
      path: "/api/v1/violations/timeline",
      method: "get",
      operationId: "getViolationTimeline",
      tag: "Violations",
      summary: "Violations over time",
      description: `Violations per bucket, split by service and classified inside or outside deployment windows; the totals and trend of violations outside deployments. ${RANGE_NOTE}`,
      query: {
        schema: timelineParamsSchema,
        examples: {
          day: { summary: "The last 24 hours in Berlin's buckets", value: { range: "24h", tz: "Europe/Berlin" } },
          custom: { summary: "Two days of one service", value: { from: twoDaysAgo, to: now, service: "orders", environment: "production" } },
        },
      },
      responses: [{ status: 200, description: "The buckets, totals and trend.", schema: violationTimelineSchema }],
      errors: ["invalid_request"],
    },
    {
      path: "/api/v1/violations/top",
      method: "get",
      operationId: "getTopViolations",
      tag: "Violations",
      summary: "Top keys, workers, services and subscriptions",
      description: RANGE_NOTE,
      query: {
        schema: topParamsSchema,
        examples: {
          week: {
            summary: "A week's keys and workers, by violations outside deployments",
            value: { range: "7d", limit: "20", ranking: "outside", lists: "keys,workers" },
          },
          service: { summary: "One service, every list", value: { range: "24h", service: "orders" } },
        },
      },
      responses: [{ status: 200, description: "The lists asked for.", schema: topViolationsSchema }],
      errors: ["invalid_request"],
    },
    {
      path: "/api/v1/violations/key",
      method: "get",
      operationId: "getKeyDrilldown",
      tag: "Violations",
      summary: "A key's drill-down",
      description: `Every event of the key in the range (the latest 1,000), the workers, who entered while whom was inside, and what coincides with each violation. ${RANGE_NOTE}`,
      query: {
        schema: keyParamsSchema,
        examples: {
          day: { summary: "The last 24 hours", value: { key: "order-1234", range: "24h" } },
          custom: { summary: "Two days", value: { key: "order-1234", from: twoDaysAgo, to: now } },
        },
      },
      responses: [{ status: 200, description: "The drill-down.", schema: keyDrilldownSchema }],
      errors: ["invalid_request"],
    },
    {
      path: "/api/v1/violations/causes",
      method: "get",
      operationId: "listViolationCauses",
      tag: "Violations",
      summary: "Violations with their causes, counted per cause",
      description: `The latest violations of the range (at most 10,000), each with its cause and the consumer that owned its key then (a Key_Shared range by the key's hash, or the partition's leader, the partition routed from the key when the event names none). The causes, by one precedence (the first whose evidence holds): ${VIOLATION_CAUSES.map((c, i) => `${i + 1}. ${c}: ${CAUSE_MEANING[c]}`).join("; ")}. ${RANGE_NOTE}`,
      query: {
        schema: causeParamsSchema,
        examples: {
          unexplained: { summary: "The ones to investigate first", value: { range: "24h", cause: "unexplained" } },
          page: { summary: "A page of 10,000 of one subscription", value: { from: twoDaysAgo, to: now, subscription: "clicks-readers", limit: "10000" } },
        },
      },
      responses: [{ status: 200, description: "The page's counts per cause and its violations.", schema: violationCausesSchema }],
      errors: ["invalid_request"],
    },
    {
      path: "/api/v1/violations/event",
      method: "get",
      operationId: "getEventDrilldown",
      tag: "Violations",
      summary: "One event's drill-down",
      description:
        "The event's key 15 minutes either side, with `focusEventId` set. Pass the event's `at` (its observedAt) when you have it: the lookup then reads one hour's partition; without it, an event that is not a violation is looked for in every stored hour (seconds with 100 million events stored).",
      query: {
        schema: eventParamsSchema,
        examples: {
          event: {
            summary: "By the id it was posted with and its time",
            value: { id: "5c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f", at: "2026-11-24T10:15:02.120Z" },
          },
          idOnly: { summary: "By the id alone", value: { id: "5c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f" } },
        },
      },
      responses: [{ status: 200, description: "The drill-down around the event.", schema: keyDrilldownSchema }],
      errors: ["invalid_request", "event_not_found"],
    },
    {
      path: "/api/v1/violations/leader-changes",
      method: "get",
      operationId: "listLeaderChangeMarkers",
      tag: "Violations",
      summary: "Leader changes in the chart's buckets",
      description: RANGE_NOTE,
      query: {
        schema: leaderChangeParamsSchema,
        examples: { day: { summary: "One subscription, a day", value: { range: "24h", tz: "UTC", subscription: "payments-processor" } } },
      },
      responses: [{ status: 200, description: "Per bucket: how many changes, and the first few.", schema: leaderChangeMarkersSchema }],
      errors: ["invalid_request"],
    },
    {
      path: "/api/v1/violations/deployments",
      method: "get",
      operationId: "listDeploymentCoincidences",
      tag: "Violations",
      summary: "Deployments with the violations inside their windows",
      description: `Newest first. ${RANGE_NOTE}`,
      query: {
        schema: deploymentParamsSchema,
        examples: {
          week: { summary: "A week of one service in production", value: { range: "7d", service: "orders", environment: "production", limit: "50" } },
        },
      },
      responses: [{ status: 200, description: "The deployments and the filter choices.", schema: deploymentCoincidencesSchema }],
      errors: ["invalid_request"],
    },
    {
      path: "/api/v1/violations/deployments/{id}",
      method: "get",
      operationId: "getDeploymentViolations",
      tag: "Violations",
      summary: "One deployment and the violations inside its window",
      description: "Takes no query parameters: any is a 400.",
      pathParameters: [deploymentIdParameter],
      query: { schema: noParamsSchema, examples: { none: { summary: "No parameters", value: {} } } },
      responses: [{ status: 200, description: "The deployment, its top keys and workers, and its latest violations.", schema: deploymentViolationsSchema }],
      errors: ["invalid_request", "deployment_not_found"],
    },
  ];
}
