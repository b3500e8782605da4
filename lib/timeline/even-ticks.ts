// The Y axis of a count chart: a top that is a whole number of even steps (1, 2 or 5 times a
// power of ten) and a tick at every step, so that the labels read 0/10/20/30/40/50 and never
// 0/15/30/45/50. Pure and client-safe.

/** At most this many steps from 0 to the top (so at most one more tick). */
const MAX_STEPS = 5;

export type EvenScale = { max: number; ticks: number[] };

/** The smallest even scale whose top reaches `value` (a count: steps are whole numbers). */
export function evenTicks(value: number, maxSteps: number = MAX_STEPS): EvenScale {
  const target = Math.max(1, Math.ceil(value));
  let magnitude = 1;
  for (;;) {
    for (const factor of [1, 2, 5]) {
      const step = factor * magnitude;
      const steps = Math.ceil(target / step);
      if (steps <= maxSteps) return { max: steps * step, ticks: Array.from({ length: steps + 1 }, (_, i) => i * step) };
    }
    magnitude *= 10;
  }
}
