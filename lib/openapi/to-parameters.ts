import "server-only";

import type { JsonSchema } from "@/lib/openapi/json-schema";
import { toJsonSchema } from "@/lib/openapi/json-schema";
import type { OperationSpec } from "@/lib/openapi/operation-types";

type ParameterObject = {
  name: string;
  in: "path" | "query";
  required: boolean;
  description?: string;
  schema: JsonSchema;
  examples?: Record<string, { summary: string; value: string | number }>;
};

/** A query value as its schema types it: `limit=20` is the integer 20 in the document. */
function typedValue(value: string, schema: JsonSchema): string | number {
  return schema.type === "integer" || schema.type === "number" ? Number(value) : value;
}

function examplesOf(
  name: string,
  schema: JsonSchema,
  examples: Record<string, { summary: string; value: Record<string, string> }>,
): ParameterObject["examples"] {
  const found = Object.entries(examples).filter(([, example]) => Object.hasOwn(example.value, name));
  if (found.length === 0) return undefined;
  return Object.fromEntries(found.map(([key, example]) => [key, { summary: example.summary, value: typedValue(example.value[name]!, schema) }]));
}

/**
 * The path and query parameters of an operation: the properties of the query schema's input
 * side (before defaults and transforms), each with the named examples that use it, and the
 * path parameters no schema parses. An example name recurs across parameters: together they
 * make one request.
 */
export function toParameters(operation: OperationSpec): ParameterObject[] {
  const parameters: ParameterObject[] = (operation.pathParameters ?? []).map((parameter) => ({
    name: parameter.name,
    in: "path",
    required: true,
    description: parameter.description,
    schema: { type: "string", minLength: 1 },
    examples: parameter.examples,
  }));
  if (!operation.query) return parameters;
  const { schema, pathParameters = [], examples } = operation.query;
  const objectSchema = toJsonSchema(schema, "input");
  const properties = (objectSchema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((objectSchema.required ?? []) as string[]);
  for (const [name, { description, ...propertySchema }] of Object.entries(properties)) {
    const isPath = pathParameters.includes(name);
    const parameterExamples = examplesOf(name, propertySchema, examples);
    parameters.push({
      name,
      in: isPath ? "path" : "query",
      required: isPath || required.has(name),
      ...(typeof description === "string" ? { description } : {}),
      schema: propertySchema,
      ...(parameterExamples ? { examples: parameterExamples } : {}),
    });
  }
  return parameters;
}
