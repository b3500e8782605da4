import "server-only";

import type { PathParameterSpec } from "@/lib/openapi/operation-types";

/** The `{id}` of a deployment URL (lib/deployments/deployment-ref.ts reads it). */
export const deploymentIdParameter: PathParameterSpec = {
  name: "id",
  description: "Baton's id (digits) or your own `id` as posted (anything else). A client id made only of digits is reached through a re-POST instead.",
  examples: { batonId: { summary: "Baton's id", value: "4821" }, clientId: { summary: "Your own id", value: "orders-2026.11.3-production" } },
};
