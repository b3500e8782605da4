import { describe, expect, it } from "vitest";

import {
  drilldownHref,
  readDeploymentsView,
  namesRange,
  readRange,
  readViolationsView,
  violationsHref,
  writeViolationsView,
} from "@/lib/violations/view-params";

const NOW = Date.parse("2026-11-22T12:00:00Z");

describe("the URL's range and filters", () => {
  it.each([
    [{}, { preset: "24h" }],
    [{ range: "7d" }, { preset: "7d" }],
    [{ range: "2h" }, { preset: "24h" }],
    [
      { from: "2026-11-22T10:00:00+02:00", to: "2026-11-22T09:00:00Z" },
      { preset: "custom", from: "2026-11-22T08:00:00.000Z", to: "2026-11-22T09:00:00.000Z" },
    ],
    [
      { range: "custom", from: "2026-11-22T08:00:00Z", to: "2026-11-22T09:00:00Z" },
      { preset: "custom", from: "2026-11-22T08:00:00.000Z", to: "2026-11-22T09:00:00.000Z" },
    ],
    [{ from: "2026-11-22T09:00:00Z", to: "2026-11-22T08:00:00Z" }, { preset: "24h" }],
    [{ from: "yesterday", to: "2026-11-22T08:00:00Z", range: "6h" }, { preset: "6h" }],
    [{ from: "2026-11-22T08:00:00Z" }, { preset: "since", from: "2026-11-22T08:00:00.000Z" }],
    [{ from: "yesterday" }, { preset: "24h" }],
  ])("reads %j as %j", (params, expected) => {
    expect(readRange(params)).toEqual(expected);
  });

  it("writes only what differs from the defaults, and reads back what it wrote", () => {
    const state = readViolationsView(new URLSearchParams("range=7d&service=orders&mode=split&changes=1&rank=outside&cause=worker-stalled"));
    expect(state).toEqual({
      range: { preset: "7d" },
      service: "orders",
      subscription: null,
      environment: null,
      mode: "split",
      showLeaderChanges: true,
      ranking: "outside",
      cause: "worker-stalled",
    });
    expect(writeViolationsView(state).toString()).toBe("range=7d&service=orders&mode=split&changes=1&rank=outside&cause=worker-stalled");
    expect(readViolationsView(writeViolationsView(state))).toEqual(state);
    expect(writeViolationsView(readViolationsView({})).toString()).toBe("range=24h");
    expect(readViolationsView({ mode: "pie" }).mode).toBe("classification");
    expect(readViolationsView({ cause: "unexplained" }).cause).toBe("unexplained");
    expect(readViolationsView({ cause: "sideways" }).cause).toBeNull();
  });

  it("keeps a fitted 'since' range in the URL and reads it back; a URL without a range lets the page fit one", () => {
    const state = { ...readViolationsView({}), range: { preset: "since" as const, from: "2026-11-22T11:40:00.000Z" } };
    expect(writeViolationsView(state).toString()).toBe("from=2026-11-22T11%3A40%3A00.000Z");
    expect(readViolationsView(writeViolationsView(state))).toEqual(state);
    expect(namesRange({})).toBe(false);
    expect(namesRange({ service: "orders" })).toBe(false);
    expect(namesRange({ range: "7d" })).toBe(true);
    expect(namesRange({ from: "2026-11-22T11:40:00Z" })).toBe(true);
  });

  it("defaults the deployments page to a week", () => {
    expect(readDeploymentsView({}).range).toEqual({ preset: "7d" });
  });

  it("links to a drill-down and to the violations of a service over a span", () => {
    expect(drilldownHref({ key: "user 42/x", range: { preset: "6h" } })).toBe("/violations/drilldown?key=user+42%2Fx&range=6h");
    expect(drilldownHref({ eventId: "e-1", observedAt: "2026-11-22T11:59:00.120Z" })).toBe("/violations/drilldown?event=e-1&at=2026-11-22T11%3A59%3A00.120Z");
    expect(violationsHref({ service: "orders", fromMs: NOW - 60_000, toMs: NOW })).toBe(
      "/violations?from=2026-11-22T11%3A59%3A00.000Z&to=2026-11-22T12%3A00%3A00.000Z&service=orders",
    );
  });
});
