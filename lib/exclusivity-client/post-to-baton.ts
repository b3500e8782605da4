// One POST of a JSON body to Baton with the client's token: shared by the event and count
// reporters, which decide themselves what an answer means.
import { isRetryableStatus, parseRetryAfter } from "./retry-policy";

export type BatonAnswer =
  | { outcome: "answered"; status: number; ok: boolean; text: string; isRetryable: boolean; retryAfterMs: number | null }
  | { outcome: "unreachable"; error: Error };

export async function postToBaton(request: { fetch: typeof fetch; endpoint: string; token: string; timeoutMs: number }, body: unknown): Promise<BatonAnswer> {
  try {
    const response = await request.fetch(request.endpoint, {
      method: "POST",
      headers: { authorization: `Bearer ${request.token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    const text = await response.text();
    return {
      outcome: "answered",
      status: response.status,
      ok: response.ok,
      text,
      isRetryable: isRetryableStatus(response.status),
      retryAfterMs: parseRetryAfter(response.headers.get("retry-after")),
    };
  } catch (error) {
    return { outcome: "unreachable", error: new Error(`cannot reach Baton at ${request.endpoint}: ${(error as Error).message}`, { cause: error }) };
  }
}
