import "server-only";

import { z } from "zod";

import { storableText } from "@/lib/ingest/text-schema";
import {
  MAX_DEPLOYMENT_DESCRIPTION_LENGTH,
  MAX_DEPLOYMENT_LINK_LENGTH,
  MAX_ATTRIBUTES_BYTES,
  MAX_ATTRIBUTES_DEPTH,
  MAX_DEPLOYMENT_VERSION_LENGTH,
  MAX_EVENT_ID_LENGTH,
  MAX_NAME_LENGTH,
} from "@/lib/ingest/limits";
import { checkAttributes } from "@/lib/ingest/safe-json";
import { parseInstant, timestampSchema } from "@/lib/ingest/timestamp";

// Field names follow what people already send to Grafana annotations and Datadog/Sentry
// deployment events; docs/ingest.md has the mapping. Where a refinement or transform hides a rule
// from JSON Schema, `.meta()` states it for the API document (lib/openapi).

const linkSchema = storableText(MAX_DEPLOYMENT_LINK_LENGTH)
  .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), { message: "must be an http:// or https:// URL" })
  .meta({ format: "uri", description: "An http:// or https:// URL (the pipeline run, the release notes)." });

/** Attributes as a JSON value for Prisma (checked like event attributes). */
const attributesSchema = z
  .unknown()
  .transform((value, ctx) => {
    const checked = checkAttributes(value);
    if (checked.isValid) return JSON.parse(checked.json) as Record<string, unknown>;
    ctx.addIssue({ code: "custom", message: checked.message });
    return z.NEVER;
  })
  .meta({
    type: "object",
    description: `A JSON object of your own, at most ${MAX_ATTRIBUTES_BYTES} bytes as JSON and nested at most ${MAX_ATTRIBUTES_DEPTH} levels deep.`,
  });

const fields = {
  service: storableText(MAX_NAME_LENGTH),
  version: storableText(MAX_DEPLOYMENT_VERSION_LENGTH),
  environment: storableText(MAX_NAME_LENGTH),
  startedAt: timestampSchema,
  finishedAt: timestampSchema.nullable(),
  link: linkSchema.nullable(),
  description: storableText(MAX_DEPLOYMENT_DESCRIPTION_LENGTH).nullable(),
  attributes: attributesSchema.nullable(),
};

/** POST /api/v1/deployments. `id` is the client's own id: posting it again is idempotent. */
export const createDeploymentSchema = z.strictObject({
  id: storableText(MAX_EVENT_ID_LENGTH).optional(),
  service: fields.service,
  version: fields.version,
  environment: fields.environment.default("production"),
  startedAt: fields.startedAt.optional(),
  finishedAt: fields.finishedAt.optional(),
  link: fields.link.optional(),
  description: fields.description.optional(),
  attributes: fields.attributes.optional(),
});
export type CreateDeploymentInput = z.output<typeof createDeploymentSchema>;

/** PATCH /api/v1/deployments/{id}: any field but the id; null clears an optional one. */
export const updateDeploymentSchema = z
  .strictObject({
    service: fields.service.optional(),
    version: fields.version.optional(),
    environment: fields.environment.optional(),
    startedAt: fields.startedAt.optional(),
    finishedAt: fields.finishedAt.optional(),
    link: fields.link.optional(),
    description: fields.description.optional(),
    attributes: fields.attributes.optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, { message: "must change at least one field" })
  .meta({ minProperties: 1 });
export type UpdateDeploymentInput = z.output<typeof updateDeploymentSchema>;

/** POST /api/v1/deployments/{id}/finish: the end of the rollout, now unless given. */
export const finishDeploymentSchema = z.strictObject({ finishedAt: timestampSchema.optional() });
export type FinishDeploymentInput = z.output<typeof finishDeploymentSchema>;

const queryInstant = z
  .string()
  .transform((value, ctx) => {
    const ms = parseInstant(value);
    if (ms !== null) return ms;
    ctx.addIssue({ code: "custom", message: "must be an RFC 3339 date-time or epoch milliseconds" });
    return z.NEVER;
  })
  .meta({ description: "An RFC 3339 date-time or epoch milliseconds." });

/** GET /api/v1/deployments query: deployments that started in [from, to), newest first. */
export const listDeploymentsQuerySchema = z.strictObject({
  service: z.string().min(1).max(MAX_NAME_LENGTH).optional(),
  environment: z.string().min(1).max(MAX_NAME_LENGTH).optional(),
  from: queryInstant.optional(),
  to: queryInstant.optional(),
  limit: z.coerce.number().int().min(1).max(1_000).default(100),
});
export type ListDeploymentsQuery = z.output<typeof listDeploymentsQuerySchema>;
