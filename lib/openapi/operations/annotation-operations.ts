import "server-only";

import type { OperationSpec } from "@/lib/openapi/operation-types";
import { annotationListSchema } from "@/lib/openapi/responses/annotation-schemas";
import { annotationsParamsSchema } from "@/lib/http/read-api-params";

// Grafana's view of Baton: holder changes and deployments as annotations. The examples' ranges
// end at `nowMs`, in epoch ms as Grafana's ${__from} and ${__to} give them.

export function annotationOperations(nowMs: number): OperationSpec[] {
  return [
    {
      path: "/api/v1/annotations",
      method: "get",
      operationId: "listAnnotations",
      tag: "Read",
      summary: "Holder changes or deployments as Grafana annotations",
      description:
        "A JSON array of annotations in Grafana's own fields (`time`, `timeEnd`, `title`, `text`, `tags`), newest first, for the JSON API or Infinity data source: `kind=changes` gives each holder change (changed, lost, appeared, hidden flap) as a point, `kind=deployments` each deployment as a region. A `cluster` must name a configured cluster.",
      query: {
        schema: annotationsParamsSchema,
        examples: {
          changes: { summary: "Every holder change of the last 6 hours", value: { kind: "changes" } },
          grafana: {
            summary: "One cluster's changes over Grafana's range",
            value: { kind: "changes", cluster: "prod-eu", from: String(nowMs - 3_600_000), to: String(nowMs), limit: "500" },
          },
          deployments: {
            summary: "One service's deployments",
            value: { kind: "deployments", service: "orders", from: String(nowMs - 86_400_000), to: String(nowMs) },
          },
        },
      },
      responses: [{ status: 200, description: "The annotations.", schema: annotationListSchema }],
      errors: ["invalid_request"],
    },
  ];
}
