import "server-only";

import { z } from "zod";

import type { Prisma } from "@/lib/db/generated/client";
import type { DeploymentJson } from "@/lib/deployments/deployment-json";
import type { IngestResponse } from "@/lib/ingest/ingest-response";
import { responseComponents } from "@/lib/openapi/schema-registries";
import type { CountsResult } from "@/lib/ingest/counts/ingest-counts";
import type { SameShape } from "@/lib/openapi/responses/same-shape";
import { isoTime } from "@/lib/openapi/responses/shared-schemas";

// What the ingest API answers (events, deployments), written after the lib functions' return
// types and checked against them at compile time.

export const ingestResponseSchema = z
  .object({
    accepted: z.number().int().meta({ description: "Events written now." }),
    duplicates: z.number().int().meta({ description: "Valid events whose id Baton already had, or that repeated an id earlier in the request." }),
    rejected: z.number().int().meta({ description: "Events that were not written; `errors` says why." }),
    errors: z.array(
      z.object({
        index: z.number().int().meta({ description: "0-based position of the event in the request (for NDJSON: among its non-blank lines)." }),
        field: z.string().nullable().meta({ description: "The field at fault; null when the item itself is (not an object)." }),
        message: z.string(),
      }),
    ),
  })
  .register(responseComponents, { id: "IngestResult", description: "Also 200 when some events were rejected: each rejected event is in `errors`." });

export const deploymentSchema = z
  .object({
    id: z.string().meta({ description: "Baton's id (digits)." }),
    externalId: z.string().nullable().meta({ description: "The client's own `id`, as posted." }),
    service: z.string(),
    version: z.string(),
    environment: z.string(),
    startedAt: isoTime,
    finishedAt: isoTime.nullable(),
    link: z.string().nullable(),
    description: z.string().nullable(),
    attributes: z.custom<Prisma.JsonValue>().meta({ type: "object", description: "The attributes posted: a JSON object." }).nullable(),
    createdAt: isoTime,
  })
  .register(responseComponents, { id: "Deployment" });

export const deploymentListSchema = z.object({ deployments: z.array(deploymentSchema) }).register(responseComponents, { id: "DeploymentList" });

export const countsResponseSchema = z
  .object({
    accepted: z.number().int().meta({ description: "Groups written now." }),
    duplicates: z.number().int().meta({ description: "Groups already stored for this client and minute (a re-sent body)." }),
  })
  .register(responseComponents, { id: "CountsResponse" });

true satisfies SameShape<z.output<typeof ingestResponseSchema>, IngestResponse>;
true satisfies SameShape<z.output<typeof countsResponseSchema>, CountsResult>;
true satisfies SameShape<z.output<typeof deploymentSchema>, DeploymentJson>;
