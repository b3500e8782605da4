import "server-only";

import type { IngestConfig } from "@/lib/config";
import { ApiError } from "@/lib/http/api-error";
import { decodeUtf8, readLimitedBody, rejectContentEncoding } from "@/lib/http/read-limited-body";

export type EventsBodyFormat = "json" | "ndjson";

const FORMATS: Record<string, EventsBodyFormat> = {
  "application/json": "json",
  "application/x-ndjson": "ndjson",
  "application/ndjson": "ndjson",
};

/** The body format named by Content-Type; 415 for anything else (or another charset). */
export function resolveEventsFormat(contentType: string | null): EventsBodyFormat {
  const [mediaType = "", ...parameters] = (contentType ?? "").split(";").map((part) => part.trim().toLowerCase());
  const format = FORMATS[mediaType];
  const charset = parameters
    .find((p) => p.startsWith("charset="))
    ?.slice("charset=".length)
    .replaceAll('"', "");
  if (!format || (charset !== undefined && charset !== "utf-8" && charset !== "utf8")) {
    throw new ApiError(
      415,
      "unsupported_media_type",
      "Send events as application/json (an array or one object) or application/x-ndjson (one object per line), in UTF-8.",
      {
        contentType,
      },
    );
  }
  return format;
}

function parseJsonItems(text: string): unknown[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, "invalid_json", `The request body is not valid JSON: ${(error as Error).message}`);
  }
  if (Array.isArray(value)) return value;
  if (value !== null && typeof value === "object") return [value];
  throw new ApiError(400, "invalid_json", "The request body must be a JSON array of events or one event object.");
}

function parseNdjsonItems(text: string): unknown[] {
  const items: unknown[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // Blank lines (and the one after a final newline) carry nothing; \r\n endings are fine.
    if (line.trim() === "") continue;
    try {
      items.push(JSON.parse(line));
    } catch (error) {
      throw new ApiError(400, "invalid_ndjson", `Line ${i + 1} of the request body is not valid JSON: ${(error as Error).message}`, { line: i + 1 });
    }
  }
  return items;
}

/**
 * The items of an events request: Content-Type checked (415), body read up to the size limit
 * (413), decoded as UTF-8 and parsed as JSON or NDJSON (400), at most maxEventsPerRequest items
 * (413). The items themselves are validated later, one by one.
 */
export async function readEventsBody(request: Request, limits: Pick<IngestConfig, "maxBodyBytes" | "maxEventsPerRequest">): Promise<unknown[]> {
  const format = resolveEventsFormat(request.headers.get("content-type"));
  rejectContentEncoding(request.headers.get("content-encoding"));
  const text = decodeUtf8(await readLimitedBody(request, limits.maxBodyBytes));
  const items = format === "json" ? parseJsonItems(text) : parseNdjsonItems(text);
  if (items.length > limits.maxEventsPerRequest) {
    throw new ApiError(413, "too_many_events", `A request may carry at most ${limits.maxEventsPerRequest} events (got ${items.length}); split it.`, {
      maxEvents: limits.maxEventsPerRequest,
      received: items.length,
    });
  }
  return items;
}
