import "server-only";

import { createDeploymentSchema, finishDeploymentSchema, updateDeploymentSchema } from "@/lib/deployments/deployment-schema";
import { requestComponents } from "@/lib/openapi/schema-registries";

// The request bodies the routes validate, named for the document. The schemas are the routes'
// own (lib/deployments/deployment-schema.ts), only registered here.

requestComponents.add(createDeploymentSchema, {
  id: "DeploymentCreate",
  description: "With your own `id`, posting again is idempotent: the same row, updated with the fields sent (the end of the rollout carrying `finishedAt`).",
});
requestComponents.add(updateDeploymentSchema, { id: "DeploymentUpdate", description: "Any field but the id; null clears an optional one." });
requestComponents.add(finishDeploymentSchema, { id: "DeploymentFinish", description: "The end of the rollout: now, unless `finishedAt` is given." });

export { createDeploymentSchema, finishDeploymentSchema, updateDeploymentSchema };
