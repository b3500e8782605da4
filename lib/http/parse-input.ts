import "server-only";

import type { z } from "zod";

import { ApiError } from "@/lib/http/api-error";
import { describeIssue } from "@/lib/http/describe-issue";
import { decodeUtf8, readLimitedBody, rejectContentEncoding } from "@/lib/http/read-limited-body";

/**
 * Parses input with a schema and returns its typed output, or throws a 400 whose details list
 * every field at fault. `what` names the input in the message ("The request body").
 */
export function parseWithSchema<Schema extends z.ZodType>(schema: Schema, input: unknown, what: string): z.output<Schema> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => describeIssue(issue, input));
  const first = issues[0]!;
  throw new ApiError(400, "invalid_request", `${what} is invalid: ${first.field ?? "it"} ${first.message}.`, { issues });
}

/**
 * A small JSON request body (a deployment), size-limited, parsed with a schema. With
 * `isOptional`, an empty body without a Content-Type parses as `{}`.
 */
export async function readJsonBody<Schema extends z.ZodType>(
  request: Request,
  schema: Schema,
  options: { maxBytes: number; isOptional?: boolean },
): Promise<z.output<Schema>> {
  const contentType = request.headers.get("content-type");
  const isJson = (contentType ?? "").split(";")[0]!.trim().toLowerCase() === "application/json";
  if (!isJson && !(options.isOptional && contentType === null)) {
    throw new ApiError(415, "unsupported_media_type", "Send the body as application/json.", { contentType });
  }
  rejectContentEncoding(request.headers.get("content-encoding"));
  const text = decodeUtf8(await readLimitedBody(request, options.maxBytes));
  if (options.isOptional && text.trim() === "") return parseWithSchema(schema, {}, "The request body");
  if (!isJson) throw new ApiError(415, "unsupported_media_type", "Send the body as application/json.", { contentType });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, "invalid_json", `The request body is not valid JSON: ${(error as Error).message}`);
  }
  return parseWithSchema(schema, value, "The request body");
}
