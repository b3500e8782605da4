import { describe, expect, it } from "vitest";

import { FAILED_CYCLES_TO_REPORT, type FailureStreak, nextFailureStreak, NO_FAILURES } from "@/lib/poller/failure-streak";

const ERROR = [{ target: "(discovery)", message: "ZooKeeper 127.0.0.1:2181: not connected within 5000 ms" }];

function run(outcomes: boolean[]): (string | null)[] {
  let streak: FailureStreak = NO_FAILURES;
  return outcomes.map((isFailed, i) => {
    const next = nextFailureStreak(streak, isFailed ? ERROR : [], `2026-11-27T18:52:${String(i).padStart(2, "0")}.000Z`);
    streak = next.streak;
    return next.line;
  });
}

describe("a source that fails cycle after cycle", () => {
  it("is logged once, when the streak reaches the threshold, with the first failure's time and error", () => {
    const lines = run([true, true, true, true, true, true]);
    expect(lines.filter((line) => line !== null)).toEqual([
      `every cycle since 2026-11-27T18:52:00.000Z has failed (${FAILED_CYCLES_TO_REPORT} in a row; said once): (discovery): ZooKeeper 127.0.0.1:2181: not connected within 5000 ms`,
    ]);
    expect(lines.findIndex((line) => line !== null)).toBe(FAILED_CYCLES_TO_REPORT - 1);
  });

  it("says once when a cycle succeeds again, and a streak below the threshold says nothing", () => {
    expect(run([true, true, true, true, false, false])).toEqual([
      null,
      null,
      expect.any(String),
      null,
      "a cycle succeeded again after 4 failed in a row (since 2026-11-27T18:52:00.000Z)",
      null,
    ]);
    expect(run([true, true, false, true, true, false])).toEqual([null, null, null, null, null, null]);
  });
});
