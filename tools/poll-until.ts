import { setTimeout as delay } from "node:timers/promises";

export interface PollResult<T> {
  value: T;
  /** How many reads it took (1 = the first read already satisfied the condition). */
  attempts: number;
}

/**
 * Reads until `isDone` holds, at most `maxAttempts` times, `intervalMs` apart. Bounded by a count
 * of reads rather than a deadline, so that a slow machine changes how long a test takes, not
 * whether it passes. Throws with the last value when the condition never held.
 */
export async function pollUntil<T>(
  read: () => Promise<T>,
  isDone: (value: T) => boolean,
  options: { maxAttempts?: number; intervalMs?: number; description?: string } = {},
): Promise<PollResult<T>> {
  const maxAttempts = options.maxAttempts ?? 100;
  const intervalMs = options.intervalMs ?? 100;
  let last: T | undefined;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    last = await read();
    if (isDone(last)) return { value: last, attempts: attempt };
    await delay(intervalMs);
  }
  throw new Error(
    `${options.description ?? "condition"} did not hold after ${maxAttempts} reads ${intervalMs} ms apart; last value: ${JSON.stringify(last)?.slice(0, 2_000)}`,
  );
}
