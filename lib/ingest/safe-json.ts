import "server-only";

import { MAX_ATTRIBUTES_BYTES, MAX_ATTRIBUTES_DEPTH } from "@/lib/ingest/limits";

// NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// Most text has neither NUL nor surrogates: this plain scan settles it without the lookarounds.
const SUSPECT = /[\u0000\uD800-\uDFFF]/;

/**
 * False for text PostgreSQL refuses: NUL (text and jsonb cannot hold U+0000) and unpaired UTF-16
 * surrogates (valid in a JSON escape such as "\ud800", but jsonb rejects them). Letting either
 * through would fail the whole batch's INSERT, so they are rejected per item instead.
 */
export function isStorableText(text: string): boolean {
  return !SUSPECT.test(text) || !UNSTORABLE.test(text);
}

export type AttributesCheck = { isValid: true; json: string } | { isValid: false; message: string };

const NOT_STORABLE = "must not contain NUL characters or unpaired surrogates";

/**
 * Checks free-form attributes: a plain JSON object, nested at most MAX_ATTRIBUTES_DEPTH deep,
 * at most MAX_ATTRIBUTES_BYTES when serialized, every key and string storable. The walk is
 * bounded before anything is serialized (JSON.stringify overflows the stack on deep input), and
 * stops after MAX_ATTRIBUTES_BYTES values: each takes at least one byte, so more cannot fit.
 */
export function checkAttributes(value: unknown): AttributesCheck {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { isValid: false, message: "must be a JSON object" };
  const pending: { node: unknown; depth: number }[] = [{ node: value, depth: 1 }];
  let visited = 0;
  while (pending.length > 0) {
    const { node, depth } = pending.pop()!;
    if (++visited > MAX_ATTRIBUTES_BYTES) return { isValid: false, message: `must be at most ${MAX_ATTRIBUTES_BYTES} bytes as JSON` };
    if (typeof node === "string") {
      if (!isStorableText(node)) return { isValid: false, message: NOT_STORABLE };
      continue;
    }
    if (node === null || typeof node !== "object") continue;
    if (depth > MAX_ATTRIBUTES_DEPTH) return { isValid: false, message: `must be nested at most ${MAX_ATTRIBUTES_DEPTH} levels deep` };
    if (Array.isArray(node)) {
      for (const child of node) pending.push({ node: child, depth: depth + 1 });
      continue;
    }
    for (const [key, child] of Object.entries(node)) {
      if (!isStorableText(key)) return { isValid: false, message: NOT_STORABLE };
      pending.push({ node: child, depth: depth + 1 });
    }
  }
  const json = JSON.stringify(value);
  if (Buffer.byteLength(json, "utf8") > MAX_ATTRIBUTES_BYTES) return { isValid: false, message: `must be at most ${MAX_ATTRIBUTES_BYTES} bytes as JSON` };
  return { isValid: true, json };
}
