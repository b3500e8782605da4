import "server-only";

import { z } from "zod";

/** A JSON Schema (2020-12) object as the API document holds it. */
export type JsonSchema = Record<string, unknown>;

type Io = "input" | "output";

const COMPONENT_PREFIX = "#/components/schemas/";

/** The `$ref` of a named component schema. */
export function componentRef(id: string): JsonSchema {
  return { $ref: `${COMPONENT_PREFIX}${id}` };
}

// Unrepresentable parts (transforms of unknown input, custom types) become `{}`; the schemas
// state their rules in `.meta()` instead. "input" describes what a client sends (before
// defaults, coercion and transforms; strict objects refuse unknown fields), "output" what
// Baton answers.
function options(io: Io, describe: (schema: z.core.$ZodType) => string | undefined = () => undefined) {
  return {
    io,
    unrepresentable: "any" as const,
    target: "draft-2020-12" as const,
    override: ({ zodSchema, jsonSchema }: { zodSchema: z.core.$ZodType; jsonSchema: JsonSchema }) => {
      // zod closes every output object; an answer may gain fields, and clients generated from
      // the document must not refuse them.
      if (io === "output" && jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
      const description = describe(zodSchema);
      if (description !== undefined) jsonSchema.description ??= description;
    },
  };
}

/** `$schema` and `$id` belong to standalone documents, not to schemas inside OpenAPI 3.1. */
function withoutDocumentKeys(schema: JsonSchema): JsonSchema {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

/** One schema, inline (nested schemas of a registry are not referenced). */
export function toJsonSchema(schema: z.ZodType, io: Io): JsonSchema {
  return withoutDocumentKeys(z.toJSONSchema(schema, options(io)) as JsonSchema);
}

/**
 * Every schema of a registry as components, referring to each other by `$ref`. A component's
 * description comes from its registry entry (zod copies only the global registry's metadata).
 */
export function toComponentSchemas(registry: z.core.$ZodRegistry<{ id: string; description?: string }>, io: Io): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(registry, { ...options(io, (schema) => registry.get(schema)?.description), uri: (id) => `${COMPONENT_PREFIX}${id}` });
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, withoutDocumentKeys(schema as JsonSchema)]));
}
