import "server-only";

import { z } from "zod";

import type { ApiErrorBody } from "@/lib/http/api-error";
import { responseComponents } from "@/lib/openapi/schema-registries";
import type { SameShape } from "@/lib/openapi/responses/same-shape";

/** An instant as Baton answers it: an ISO 8601 string in UTC. */
export const isoTime = z.string().meta({ format: "date-time" });

export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.string().meta({ description: "Stable, machine-readable: `invalid_request`, `deployment_not_found`, …" }),
      message: z.string().meta({ description: "One sentence for a person; it names the field at fault." }),
      details: z.unknown().optional().meta({ description: "For `invalid_request`: `{ issues: [{ field, message }] }`, every field at fault." }),
    }),
  })
  .register(responseComponents, { id: "Error", description: "The one error shape of Baton's API; never a stack trace." });

true satisfies SameShape<z.output<typeof errorBodySchema>, ApiErrorBody>;
