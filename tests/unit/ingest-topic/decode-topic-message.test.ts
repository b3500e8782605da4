import { describe, expect, it } from "vitest";

import { decodeTopicMessage } from "@/lib/ingest/topic-source/decode-topic-message";

describe("decodeTopicMessage", () => {
  it.each([
    ['{"id":"a"}', { isOk: true, items: [{ id: "a" }] }],
    ['[{"id":"a"},{"id":"b"}]', { isOk: true, items: [{ id: "a" }, { id: "b" }] }],
  ])("reads %s", (text, expected) => {
    expect(decodeTopicMessage(Buffer.from(text))).toEqual(expected);
  });

  it.each([
    ["{not json", /not JSON/],
    ["[]", /empty array/],
    ["42", /JSON object/],
    ["null", /JSON object/],
    ['"text"', /JSON object/],
  ])("rejects %s", (text, pattern) => {
    const decoded = decodeTopicMessage(Buffer.from(text));
    expect(decoded.isOk).toBe(false);
    if (!decoded.isOk) expect(decoded.error).toMatch(pattern);
  });

  it("rejects bad UTF-8", () => {
    expect(decodeTopicMessage(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))).toEqual({ isOk: false, error: "the payload is not valid UTF-8" });
  });
});
