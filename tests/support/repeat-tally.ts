import type { TestOutcome } from "@/tests/support/read-test-reports";

/** One test over every repetition: how often it ran and failed, and each distinct first error line. */
export type TestTally = { test: string; runs: number; failures: number; errors: string[] };

/** Adds one run's outcomes to the tallies, keyed by test name. */
export function tallyOutcomes(tallies: Map<string, TestTally>, outcomes: TestOutcome[]): void {
  for (const outcome of outcomes) {
    const tally = tallies.get(outcome.test) ?? { test: outcome.test, runs: 0, failures: 0, errors: [] };
    tally.runs += 1;
    if (!outcome.passed) {
      tally.failures += 1;
      if (outcome.error && !tally.errors.includes(outcome.error)) tally.errors.push(outcome.error);
    }
    tallies.set(outcome.test, tally);
  }
}

/** The report's lines: each test that failed at least once (most failures first), then one count line. */
export function formatTallies(tallies: Iterable<TestTally>, repetitions: number): string[] {
  const all = [...tallies];
  const failing = all.filter((tally) => tally.failures > 0).sort((a, b) => b.failures - a.failures || a.test.localeCompare(b.test));
  const lines = failing.flatMap((tally) => [`  failed ${tally.failures} of ${tally.runs}: ${tally.test}`, ...tally.errors.map((error) => `      ${error}`)]);
  const passed = all.reduce((sum, tally) => sum + tally.runs - tally.failures, 0);
  const failed = all.reduce((sum, tally) => sum + tally.failures, 0);
  const heading =
    failing.length === 0
      ? `${all.length} tests, ${repetitions} repetitions: none failed`
      : `${all.length} tests, ${repetitions} repetitions: ${failing.length} failed at least once`;
  return [heading, ...lines, `repeat: ${passed} passed, ${failed} failed`];
}
