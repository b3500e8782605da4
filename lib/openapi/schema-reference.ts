import "server-only";

import type { z } from "zod";

import { componentRef, type JsonSchema, toJsonSchema } from "@/lib/openapi/json-schema";
import type { ComponentMeta } from "@/lib/openapi/schema-registries";

/** A `$ref` to the schema's component when it is registered as one, else the schema inline. */
export function schemaReference(schema: z.ZodType, registry: z.core.$ZodRegistry<ComponentMeta>, io: "input" | "output"): JsonSchema {
  const meta = registry.get(schema);
  return meta ? componentRef(meta.id) : toJsonSchema(schema, io);
}
