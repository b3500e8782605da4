// What the pages' live reads share (react-query options in each feature's *-queries.ts): the
// refresh period, the key and the current bounds of a live range, and the page size of change
// lists. Client-safe.

/** How often the live views refresh: about a default poll interval. */
export const LIVE_REFRESH_MS = 5_000;

/** Changes a page shows at a time (newer and older pages by cursor). */
export const CHANGE_PAGE_SIZE = 50;

/** A live range is keyed by its length, so that "now" moving on does not make a new entry. */
export function rangeKey(range: { fromMs: number; toMs: number }, isLive: boolean) {
  return isLive ? { span: range.toMs - range.fromMs } : range;
}

/** The range to ask for now: a live one ends now and keeps its length. */
export function currentRange(range: { fromMs: number; toMs: number }, isLive: boolean): { from: number; to: number } {
  const to = isLive ? Date.now() : range.toMs;
  return { from: to - (range.toMs - range.fromMs), to };
}
