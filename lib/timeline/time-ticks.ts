// Tick positions for a time axis: round times (every 5 min, every hour, every day...) chosen
// so that about `maxTicks` fit the range. Pure and client-safe; the chart only draws them.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const STEPS = [
  10_000,
  15_000,
  30_000,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
  2 * DAY,
  7 * DAY,
];

/**
 * Round ticks inside [fromMs, toMs]. Steps under an hour are aligned to the clock in UTC;
 * longer ones to `offsetMs` (local time minus UTC: days start at the reader's midnight).
 */
export function timeTicks(fromMs: number, toMs: number, maxTicks = 8, offsetMs = 0): number[] {
  if (!(toMs > fromMs) || maxTicks < 1) return [];
  const span = toMs - fromMs;
  const step = STEPS.find((s) => span / s <= maxTicks) ?? Math.ceil(span / maxTicks / DAY) * DAY;
  const align = step >= HOUR ? offsetMs : 0;
  const ticks: number[] = [];
  for (let t = Math.ceil((fromMs + align) / step) * step - align; t <= toMs; t += step) ticks.push(t);
  return ticks;
}
