import { describe, expect, it } from "vitest";

import { MAX_ATTRIBUTES_BYTES } from "@/lib/ingest/limits";
import { checkAttributes, isStorableText } from "@/lib/ingest/safe-json";

function nest(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 1; i < depth; i++) value = { child: value };
  return value;
}

describe("isStorableText", () => {
  it.each([
    ["plain", true],
    ["emoji \u{1F600} and ümlauts", true],
    ["nul \u0000 inside", false],
    ["lone high \ud800", false],
    ["lone low \udc00 x", false],
    ["reversed pair \udc00\ud800", false],
  ])("%j -> %s", (text, expected) => {
    expect(isStorableText(text)).toBe(expected);
  });
});

describe("checkAttributes", () => {
  it("accepts a small object and returns its JSON", () => {
    expect(checkAttributes({ region: "eu", retries: 2, tags: ["a", "b"], nested: { ok: true } })).toEqual({
      isValid: true,
      json: '{"region":"eu","retries":2,"tags":["a","b"],"nested":{"ok":true}}',
    });
  });

  it.each([
    ["an array", ["a"], /JSON object/],
    ["a string", "x", /JSON object/],
    ["null", null, /JSON object/],
    ["too deep", nest(9), /nested at most 8/],
    ["too large", { blob: "x".repeat(MAX_ATTRIBUTES_BYTES) }, /at most 8192 bytes/],
    ["too many values", { list: Array.from({ length: 10_000 }, () => 0) }, /at most 8192 bytes/],
    ["a NUL in a value", { a: "x\u0000" }, /NUL/],
    ["a lone surrogate in a key", { "k\ud800": 1 }, /surrogates/],
  ])("rejects %s", (_label, value, message) => {
    const checked = checkAttributes(value);
    expect(checked.isValid).toBe(false);
    if (!checked.isValid) expect(checked.message).toMatch(message);
  });

  it("accepts the deepest allowed nesting", () => {
    expect(checkAttributes(nest(8)).isValid).toBe(true);
  });

  it("counts bytes, not characters", () => {
    expect(checkAttributes({ text: "é".repeat(4_100) }).isValid).toBe(false);
  });

  it("does not overflow the stack on very deep input", () => {
    const deep = JSON.parse(`{"a":${"[".repeat(100_000)}${"]".repeat(100_000)}}`) as unknown;
    expect(checkAttributes(deep)).toMatchObject({ isValid: false });
  });
});
