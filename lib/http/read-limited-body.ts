import "server-only";

import { ApiError } from "@/lib/http/api-error";

function payloadTooLarge(maxBytes: number): ApiError {
  return new ApiError(413, "payload_too_large", `The request body is larger than ${maxBytes} bytes.`, { maxBytes });
}

/**
 * Reads the request body as a stream and stops as soon as it passes `maxBytes` (413), so an
 * unbounded body is never buffered. A Content-Length over the limit is refused unread.
 */
export async function readLimitedBody(request: Request, maxBytes: number): Promise<Buffer> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw payloadTooLarge(maxBytes);
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel("request body too large");
      throw payloadTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

/** Compressed bodies are refused (415) rather than mistaken for bad JSON. */
export function rejectContentEncoding(contentEncoding: string | null): void {
  const encoding = (contentEncoding ?? "identity").trim().toLowerCase();
  if (encoding !== "identity" && encoding !== "") {
    throw new ApiError(415, "unsupported_content_encoding", "Compressed request bodies are not supported; send the body uncompressed.", { contentEncoding });
  }
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The body as text; 400 when it is not UTF-8. A leading byte-order mark is dropped. */
export function decodeUtf8(body: Uint8Array): string {
  try {
    return UTF8.decode(body);
  } catch {
    // TextDecoder says only "The encoded data was not valid": the position is not available.
    throw new ApiError(400, "invalid_encoding", "The request body is not valid UTF-8.");
  }
}
