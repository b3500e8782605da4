// Turning a key Baton holds as a JS string back into the bytes a Pulsar client sent. Exact only
// when the string is well formed and was not produced by a lossy decode. Client-safe.

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** What a lossy UTF-8 decode puts where the bytes were invalid. */
const REPLACEMENT_CHARACTER = "\uFFFD";

const encoder = new TextEncoder();

/**
 * The UTF-8 bytes of `text`, or null when they cannot be the bytes as sent: a lone surrogate
 * (Java encodes it as "?", TextEncoder as U+FFFD) or U+FFFD (the original bytes were not valid
 * UTF-8 and were replaced when decoded).
 */
export function encodeUtf8Exactly(text: string): Uint8Array | null {
  if (LONE_SURROGATE.test(text) || text.includes(REPLACEMENT_CHARACTER)) return null;
  return encoder.encode(text);
}

/** True when every character is ASCII, so every charset a JVM may default to encodes it the same. */
export function isAscii(text: string): boolean {
  return /^[\x00-\x7f]*$/.test(text);
}

/** The bytes of an ASCII string (check with isAscii first); much cheaper than TextEncoder for
 * the many short strings a hash ring needs. */
export function encodeAscii(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}
