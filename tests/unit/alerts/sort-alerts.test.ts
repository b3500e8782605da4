import { describe, expect, it } from "vitest";

import { sortAlerts } from "@/lib/alerts/sort-alerts";

const at = (minutesAgo: number) => new Date(Date.parse("2026-11-27T12:00:00Z") - minutesAgo * 60_000).toISOString();

describe("sortAlerts: state, then severity, then age", () => {
  it("puts firing before pending before resolved, the critical first within each, then the newest", () => {
    const alerts = [
      { id: "1", state: "pending", severity: "critical", activeAt: at(1), resolvedAt: null },
      { id: "2", state: "firing", severity: "warning", activeAt: at(1), resolvedAt: null },
      { id: "3", state: "firing", severity: "critical", activeAt: at(30), resolvedAt: null },
      { id: "4", state: "firing", severity: "critical", activeAt: at(2), resolvedAt: null },
      { id: "5", state: "resolved", severity: "critical", activeAt: at(60), resolvedAt: at(5) },
      { id: "6", state: "resolved", severity: "critical", activeAt: at(10), resolvedAt: at(8) },
      { id: "7", state: "pending", severity: "warning", activeAt: at(0), resolvedAt: null },
    ] as const;
    expect(sortAlerts(alerts.map((a) => ({ ...a }))).map((a) => a.id)).toEqual(["4", "3", "2", "1", "7", "5", "6"]);
  });

  it("orders equal alerts by id, so a refresh keeps them in place", () => {
    const same = { state: "firing", severity: "warning", activeAt: at(3), resolvedAt: null } as const;
    expect(
      sortAlerts([
        { ...same, id: "b" },
        { ...same, id: "a" },
      ]).map((a) => a.id),
    ).toEqual(["a", "b"]);
  });
});
