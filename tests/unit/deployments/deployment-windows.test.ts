import { describe, expect, it } from "vitest";

import {
  deploymentWindow,
  effectiveEndMs,
  isInsideWindows,
  isViolationInside,
  mergeWindows,
  OPEN_DEPLOYMENT_MAX_MS,
  windowsByService,
} from "@/lib/deployments/deployment-windows";

const MINUTE = 60_000;
const GRACE = 5 * MINUTE;
const at = (iso: string) => Date.parse(iso);
const NOW = at("2026-11-22T12:00:00Z");

describe("the classification window", () => {
  it("runs from the minute a deployment started in through the minute its grace period ends in", () => {
    const window = deploymentWindow({ startedAtMs: at("2026-11-22T10:00:40Z"), finishedAtMs: at("2026-11-22T10:04:10Z") }, GRACE, NOW);
    expect(window).toEqual({ start: at("2026-11-22T10:00:00Z"), end: at("2026-11-22T10:10:00Z") });
  });

  it("counts a violation inside from the window's first minute to the last millisecond of its last minute", () => {
    const windows = [deploymentWindow({ startedAtMs: at("2026-11-22T10:00:40Z"), finishedAtMs: at("2026-11-22T10:04:10Z") }, GRACE, NOW)];
    expect(isInsideWindows(at("2026-11-22T09:59:59.999Z"), windows)).toBe(false);
    // 40 s before the reported start, in the same minute: the rollup cannot tell, so it is inside.
    expect(isInsideWindows(at("2026-11-22T10:00:00.000Z"), windows)).toBe(true);
    expect(isInsideWindows(at("2026-11-22T10:04:10.000Z"), windows)).toBe(true);
    // Within the grace period after the finish.
    expect(isInsideWindows(at("2026-11-22T10:09:10.000Z"), windows)).toBe(true);
    expect(isInsideWindows(at("2026-11-22T10:09:59.999Z"), windows)).toBe(true);
    expect(isInsideWindows(at("2026-11-22T10:10:00.000Z"), windows)).toBe(false);
  });

  it("without grace, ends with the minute of the finish", () => {
    expect(deploymentWindow({ startedAtMs: at("2026-11-22T10:00:00Z"), finishedAtMs: at("2026-11-22T10:04:00Z") }, 0, NOW)).toEqual({
      start: at("2026-11-22T10:00:00Z"),
      end: at("2026-11-22T10:05:00Z"),
    });
  });

  it("keeps an unfinished deployment open until now, and for a day at most", () => {
    const open = { startedAtMs: at("2026-11-22T11:00:00Z"), finishedAtMs: null };
    expect(effectiveEndMs(open, NOW)).toBe(NOW);
    expect(deploymentWindow(open, GRACE, NOW).end).toBe(at("2026-11-22T12:06:00Z"));
    const forgotten = { startedAtMs: at("2026-11-19T08:00:00Z"), finishedAtMs: null };
    expect(effectiveEndMs(forgotten, NOW)).toBe(forgotten.startedAtMs + OPEN_DEPLOYMENT_MAX_MS);
    expect(isInsideWindows(at("2026-11-21T09:00:00Z"), [deploymentWindow(forgotten, GRACE, NOW)])).toBe(false);
  });

  it("never ends before it starts, even if a finish was reported earlier than the start", () => {
    expect(effectiveEndMs({ startedAtMs: at("2026-11-22T10:00:00Z"), finishedAtMs: at("2026-11-22T09:00:00Z") }, NOW)).toBe(at("2026-11-22T10:00:00Z"));
  });

  it("does not depend on the zone the times were written in", () => {
    const utc = deploymentWindow({ startedAtMs: at("2026-11-22T10:00:40Z"), finishedAtMs: at("2026-11-22T10:04:10Z") }, GRACE, NOW);
    const berlin = deploymentWindow({ startedAtMs: at("2026-11-22T11:00:40+01:00"), finishedAtMs: at("2026-11-22T15:34:10+05:30") }, GRACE, NOW);
    expect(berlin).toEqual(utc);
  });
});

describe("overlapping deployments", () => {
  it("merges overlapping, adjacent and nested windows, keeps separate ones apart", () => {
    expect(
      mergeWindows([
        { start: 50, end: 60 },
        { start: 0, end: 10 },
        { start: 5, end: 20 },
        { start: 20, end: 30 },
        { start: 22, end: 25 },
      ]),
    ).toEqual([
      { start: 0, end: 30 },
      { start: 50, end: 60 },
    ]);
    expect(mergeWindows([])).toEqual([]);
  });

  it("classifies per service: another service's deployment does not make a violation inside", () => {
    const windows = windowsByService(
      [
        { service: "orders", startedAtMs: at("2026-11-22T10:00:00Z"), finishedAtMs: at("2026-11-22T10:10:00Z") },
        { service: "orders", startedAtMs: at("2026-11-22T10:08:00Z"), finishedAtMs: at("2026-11-22T10:30:00Z") },
        { service: "billing", startedAtMs: at("2026-11-22T11:00:00Z"), finishedAtMs: at("2026-11-22T11:10:00Z") },
      ],
      GRACE,
      NOW,
    );
    expect(windows.get("orders")).toEqual([{ start: at("2026-11-22T10:00:00Z"), end: at("2026-11-22T10:36:00Z") }]);
    expect(isViolationInside("orders", at("2026-11-22T10:20:00Z"), windows)).toBe(true);
    expect(isViolationInside("orders", at("2026-11-22T11:05:00Z"), windows)).toBe(false);
    expect(isViolationInside("billing", at("2026-11-22T11:05:00Z"), windows)).toBe(true);
    expect(isViolationInside("payments", at("2026-11-22T11:05:00Z"), windows)).toBe(false);
  });
});
