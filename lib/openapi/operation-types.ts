import "server-only";

import type { z } from "zod";

import type { ErrorCode } from "@/lib/openapi/error-codes";

// One documented operation: what the route takes (the zod schemas it parses with, and
// examples), what it answers, and which error codes it can send.

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

export type Example<T> = { summary: string; value: T };

export type QuerySpec = {
  /** The schema the route parses its query (and path parameters, when named below) with. */
  schema: z.ZodType;
  /** Properties of `schema` that come from the path, not the query string. */
  pathParameters?: readonly string[];
  /** Named examples: parameter name -> value, path parameters included. */
  examples: Record<string, Example<Record<string, string>>>;
};

/** A path parameter that no schema parses (the lib function reads it). */
export type PathParameterSpec = { name: string; description: string; examples: Record<string, Example<string>> };

export type BodySpec = {
  /** The schema the route validates the body with (a component of the document). */
  schema: z.ZodType;
  isRequired: boolean;
  description?: string;
  examples: Record<string, Example<unknown>>;
  /** Also accepted as NDJSON (one item per line), with these examples. */
  ndjsonExamples?: Record<string, Example<string>>;
};

export type ResponseSpec = { status: number; description: string; schema: z.ZodType };

export type OperationSpec = {
  path: string;
  method: HttpMethod;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  /** Needs `Authorization: Bearer bat_…`. */
  isAuthenticated?: boolean;
  pathParameters?: readonly PathParameterSpec[];
  query?: QuerySpec;
  body?: BodySpec;
  responses: readonly ResponseSpec[];
  /** What it can answer besides `internal` (500), which every operation can. */
  errors: readonly ErrorCode[];
};
