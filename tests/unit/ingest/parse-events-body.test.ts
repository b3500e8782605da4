import { describe, expect, it } from "vitest";

import { ApiError } from "@/lib/http/api-error";
import { readEventsBody, resolveEventsFormat } from "@/lib/ingest/parse-events-body";

const LIMITS = { maxBodyBytes: 1_024, maxEventsPerRequest: 3 };

function request(body: BodyInit | null, headers: Record<string, string> = { "content-type": "application/json" }): Request {
  return new Request("http://baton.test/api/v1/exclusivity-events", { method: "POST", headers, body, duplex: "half" } as RequestInit);
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

/** A body that arrives in chunks without a Content-Length, as a chunked upload does. */
function chunked(chunks: number, chunkBytes: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent++ >= chunks) controller.close();
      else controller.enqueue(new Uint8Array(chunkBytes).fill(0x20));
    },
  });
}

describe("resolveEventsFormat", () => {
  it.each([
    ["application/json", "json"],
    ["application/json; charset=utf-8", "json"],
    ['Application/JSON; charset="UTF-8"', "json"],
    ["application/x-ndjson", "ndjson"],
    ["application/ndjson; charset=utf8", "ndjson"],
  ])("%s -> %s", (contentType, format) => {
    expect(resolveEventsFormat(contentType)).toBe(format);
  });

  it.each([null, "", "text/plain", "application/xml", "application/json; charset=latin1", "multipart/form-data"])("refuses %j with 415", (contentType) => {
    expect(() => resolveEventsFormat(contentType)).toThrow(expect.objectContaining({ status: 415, code: "unsupported_media_type" }));
  });
});

describe("readEventsBody", () => {
  it("reads a JSON array, a single object and NDJSON", async () => {
    expect(await readEventsBody(request('[{"a":1},{"a":2}]'), LIMITS)).toEqual([{ a: 1 }, { a: 2 }]);
    expect(await readEventsBody(request('{"a":1}'), LIMITS)).toEqual([{ a: 1 }]);
    expect(await readEventsBody(request('{"a":1}\r\n\n{"a":2}\n', { "content-type": "application/x-ndjson" }), LIMITS)).toEqual([{ a: 1 }, { a: 2 }]);
    expect(await readEventsBody(request("[]"), LIMITS)).toEqual([]);
  });

  it("keeps NDJSON lines that are not objects as items (they are rejected one by one later)", async () => {
    expect(await readEventsBody(request('1\n"x"\n[]', { "content-type": "application/x-ndjson" }), LIMITS)).toEqual([1, "x", []]);
  });

  it.each([
    ["not JSON", "{nope", "invalid_json"],
    ["truncated", '[{"a":1}', "invalid_json"],
    ["a bare number", "42", "invalid_json"],
    ["a bare string", '"events"', "invalid_json"],
    ["null", "null", "invalid_json"],
    ["empty", "", "invalid_json"],
  ])("answers 400 for a JSON body that is %s", async (_label, body, code) => {
    expect(await failure(readEventsBody(request(body), LIMITS))).toMatchObject({ status: 400, code });
  });

  it("names the NDJSON line that is not JSON", async () => {
    const error = await failure(readEventsBody(request('{"a":1}\n\n{"a":\n', { "content-type": "application/x-ndjson" }), LIMITS));
    expect(error).toMatchObject({ status: 400, code: "invalid_ndjson", details: { line: 3 } });
    expect(error.message).toMatch(/^Line 3 /);
  });

  it("answers 400 for bytes that are not UTF-8", async () => {
    for (const bytes of [[0xff], [0xc3, 0x28], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
      const body = new Uint8Array([0x5b, 0x22, ...bytes, 0x22, 0x5d]);
      expect(await failure(readEventsBody(request(body), LIMITS))).toMatchObject({ status: 400, code: "invalid_encoding" });
    }
  });

  it("answers 413 when Content-Length is over the limit, before reading", async () => {
    const body = chunked(1_000_000, 1_024);
    const error = await failure(readEventsBody(request(body, { "content-type": "application/json", "content-length": "2048" }), LIMITS));
    expect(error).toMatchObject({ status: 413, code: "payload_too_large", details: { maxBytes: 1_024 } });
  });

  it("answers 413 for a streamed body once it passes the limit, without reading the rest", async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(256).fill(0x20));
      },
    });
    expect(await failure(readEventsBody(request(endless), LIMITS))).toMatchObject({ status: 413, code: "payload_too_large" });
    expect(pulled).toBeLessThan(10);
  });

  it("accepts a body exactly at the limit", async () => {
    const body = `[${" ".repeat(LIMITS.maxBodyBytes - 2)}]`;
    expect(await readEventsBody(request(body), LIMITS)).toEqual([]);
  });

  it("answers 413 for more events than a request may carry", async () => {
    expect(await failure(readEventsBody(request("[1,2,3,4]"), LIMITS))).toMatchObject({
      status: 413,
      code: "too_many_events",
      details: { maxEvents: 3, received: 4 },
    });
  });

  it("answers 415 for a compressed body", async () => {
    const error = await failure(readEventsBody(request("[]", { "content-type": "application/json", "content-encoding": "gzip" }), LIMITS));
    expect(error).toMatchObject({ status: 415, code: "unsupported_content_encoding" });
  });
});
