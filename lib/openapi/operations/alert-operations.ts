import "server-only";

import { alertsParamsSchema } from "@/lib/alerts/alerts-params";
import type { OperationSpec } from "@/lib/openapi/operation-types";
import { alertListSchema } from "@/lib/openapi/responses/alert-schemas";

// The alerts' read API. The examples' ranges end at `nowMs`.

export function alertOperations(nowMs: number): OperationSpec[] {
  return [
    {
      path: "/api/v1/alerts",
      method: "get",
      operationId: "listAlerts",
      tag: "Read",
      summary: "Alerts",
      description:
        "Alerts (the rules in docs/alerts.md) with their state history and the Baton page that explains each: firing first, then pending, then resolved; within each, critical before warning, then newest first.",
      query: {
        schema: alertsParamsSchema,
        examples: {
          all: { summary: "Firing, pending and recent alerts", value: {} },
          firing: { summary: "What fires on one cluster", value: { state: "firing", cluster: "prod-eu" } },
          range: {
            summary: "A service's violations alerts active in the last day",
            value: { rule: "violations", service: "orders", from: new Date(nowMs - 86_400_000).toISOString(), to: new Date(nowMs).toISOString(), limit: "50" },
          },
        },
      },
      responses: [{ status: 200, description: "The alerts.", schema: alertListSchema }],
      errors: ["invalid_request"],
    },
  ];
}
