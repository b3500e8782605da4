/**
 * How many of the latest scrape rounds set the period. A broker's render time swings (2.3 s at
 * p50 and 4.2 s at most for 10,000 partitions in one run of docs/scale.md): over five rounds, one
 * slow round lengthens the next five periods by a fifth of its excess each instead of doubling
 * the next one, and a broker that stays slow is scraped less often within five rounds.
 */
export const SCRAPE_ROUNDS_REMEMBERED = 5;

/**
 * The time from the start of one scrape round to the start of the next: the configured interval,
 * or twice the mean of the latest rounds when that is longer. Each round counts in five means
 * with a fifth of its time, so the periods sum to twice the rounds' time: a broker spends at most
 * half of its time rendering for Baton, as when the period followed the last round alone.
 */
export function scrapePeriodMs(recentRoundsMs: readonly number[], intervalMs: number): number {
  if (recentRoundsMs.length === 0) return intervalMs;
  const meanMs = recentRoundsMs.reduce((sum, ms) => sum + ms, 0) / recentRoundsMs.length;
  return Math.max(intervalMs, 2 * meanMs);
}

/** The latest rounds with this one added, the oldest dropped past SCRAPE_ROUNDS_REMEMBERED. */
export function rememberRound(recentRoundsMs: readonly number[], roundMs: number): number[] {
  return [...recentRoundsMs, roundMs].slice(-SCRAPE_ROUNDS_REMEMBERED);
}
