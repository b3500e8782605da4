// Cycles in a row that failed, so that a source failing cycle after cycle says so in the worker's
// log once (each cycle's errors are in poll_run, where the board and /api/health read them), and
// once more when a cycle succeeds again. Pure.

/** From this many failed cycles in a row on, the log says the source keeps failing. */
export const FAILED_CYCLES_TO_REPORT = 3;

export type FailureStreak = { count: number; since: string | null };

export const NO_FAILURES: FailureStreak = { count: 0, since: null };

/** The streak after a cycle that ended at `at` with `errors` (none: it succeeded), and the line to log, if any. */
export function nextFailureStreak(
  streak: FailureStreak,
  errors: { target: string; message: string }[],
  at: string,
): { streak: FailureStreak; line: string | null } {
  const first = errors[0];
  if (first === undefined) {
    const line = streak.count >= FAILED_CYCLES_TO_REPORT ? `a cycle succeeded again after ${streak.count} failed in a row (since ${streak.since})` : null;
    return { streak: NO_FAILURES, line };
  }
  const next = { count: streak.count + 1, since: streak.since ?? at };
  const line =
    next.count === FAILED_CYCLES_TO_REPORT
      ? `every cycle since ${next.since} has failed (${next.count} in a row; said once): ${first.target}: ${first.message}`
      : null;
  return { streak: next, line };
}
