// When a request to Baton is tried again, and after how long: shared by the event and count
// reporters.

export const RETRY_BASE_MS = 250;
export const RETRY_MAX_MS = 10_000;
/** A Retry-After longer than this is not waited for in full (close() would hang on it). */
export const MAX_RETRY_AFTER_MS = 30_000;

/** 408, 429 and 5xx may pass on a later try; other 4xx will not (bad token, body, size). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

export function parseRetryAfter(header: string | null): number | null {
  if (header === null) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

export function backoffMs(attempt: number): number {
  // Full jitter: many workers that failed together do not retry together.
  return Math.random() * Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (attempt - 1));
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
