import { describe, expect, it } from "vitest";

import { alertsOfService, prepareAlertSpans } from "@/lib/alerts/alert-spans";
import type { AlertView } from "@/lib/alerts/alert-types";

const T0 = Date.UTC(2026, 10, 24, 10, 0, 0);
const iso = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

function alert(id: string, state: AlertView["state"], active: number, fired: number | null, resolved: number | null): AlertView {
  return {
    id,
    fingerprint: id,
    rule: "no-holder",
    labels: { alertname: "no-holder" },
    severity: "critical",
    state,
    summary: `alert ${id}`,
    description: "",
    link: "/",
    activeAt: iso(active),
    firedAt: fired === null ? null : iso(fired),
    resolvedAt: resolved === null ? null : iso(resolved),
    history: [],
  };
}

describe("prepareAlertSpans", () => {
  const from = T0;
  const to = T0 + 100 * 60_000;

  it("spans each alert from firing to resolution as fractions of the range, open ones to its end", () => {
    const spans = prepareAlertSpans([alert("b", "firing", 50, 60, null), alert("a", "resolved", 10, 20, 30)], from, to);
    expect(spans.map((s) => [s.id, s.start, s.end])).toEqual([
      ["a", 0.2, 0.3],
      ["b", 0.6, 1],
    ]);
    expect(spans[0]!.title).toBe(`alert a: fired ${iso(20)}, resolved ${iso(30)}`);
    expect(spans[1]!.title).toContain("still firing");
  });

  it("starts a pending alert where it became active, and clips to the range", () => {
    const spans = prepareAlertSpans([alert("p", "pending", 95, null, null), alert("early", "resolved", -20, -10, 5)], from, to);
    expect(spans.map((s) => [s.id, s.start, s.end])).toEqual([
      ["early", 0, 0.05],
      ["p", 0.95, 1],
    ]);
  });

  it("leaves out alerts outside the range", () => {
    expect(prepareAlertSpans([alert("old", "resolved", -30, -20, -10), alert("later", "firing", 120, 120, null)], from, to)).toEqual([]);
    expect(prepareAlertSpans([alert("x", "firing", 1, 1, null)], to, from)).toEqual([]);
  });
});

describe("alertsOfService", () => {
  it("keeps the alerts whose service label is the service, for that service's own chart", () => {
    const of = (id: string, service?: string): AlertView => ({
      ...alert(id, "firing", 0, 0, null),
      rule: "violations",
      labels: service === undefined ? { alertname: "violations" } : { alertname: "violations", service },
    });
    const alerts = [of("orders-1", "orders"), of("billing-1", "billing"), of("cluster-wide"), of("orders-2", "orders")];
    expect(alertsOfService(alerts, "orders").map((a) => a.id)).toEqual(["orders-1", "orders-2"]);
    expect(alertsOfService(alerts, "payments")).toEqual([]);
  });
});
