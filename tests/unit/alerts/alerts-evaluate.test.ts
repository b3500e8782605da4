import { describe, expect, it } from "vitest";

import { parseAlertsConfig } from "@/lib/alerts/alert-config";
import type { AlertCondition, StoredAlert } from "@/lib/alerts/alert-types";
import { evaluateAlerts } from "@/lib/alerts/evaluate-alerts";
import { fingerprintOf } from "@/lib/alerts/fingerprint";

const T0 = 1_700_000_000_000;
const config = parseAlertsConfig({
  rulesJson: { "no-holder": { forSeconds: 30 } },
  webhooksJson: [],
  evaluationIntervalMs: 5_000,
  alertmanagerUrl: null,
  resendSeconds: 60,
  linkBaseUrl: "http://baton",
});

function noHolder(subscription = "billing"): AlertCondition {
  return {
    labels: { alertname: "no-holder", cluster: "prod", kind: "pulsar-subscription", resource: "persistent://t/ns/orders", subscription },
    severity: "critical",
    annotations: { summary: "No holder", description: "nobody consumes", link: "http://baton/subscriptions" },
  };
}

/** Runs evaluations at the given instants, carrying the open alerts along as the store would. */
function run(steps: { at: number; conditions: AlertCondition[] }[], rules = config.rules) {
  let open: StoredAlert[] = [];
  return steps.map(({ at, conditions }) => {
    const result = evaluateAlerts({ nowMs: at, rules, open, conditions, resendMs: config.resendMs });
    open = result.alerts.filter((a) => a.state !== "resolved");
    return result;
  });
}

describe("fingerprintOf", () => {
  it("is stable across label order and ignores unset labels", () => {
    const a = fingerprintOf({ alertname: "no-holder", cluster: "prod", subscription: "s" });
    const b = fingerprintOf({ subscription: "s", cluster: "prod", alertname: "no-holder", service: undefined });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{16}$/);
  });

  it("differs when any label differs", () => {
    const base = { alertname: "no-holder", cluster: "prod", subscription: "s" } as const;
    const prints = new Set([
      fingerprintOf(base),
      fingerprintOf({ ...base, cluster: "dev" }),
      fingerprintOf({ ...base, subscription: "t" }),
      fingerprintOf({ ...base, alertname: "stuck" }),
    ]);
    expect(prints.size).toBe(4);
  });
});

describe("evaluateAlerts", () => {
  it("goes pending, then firing after `for`, then resolved, notifying firing and resolved once each", () => {
    const [first, early, fired, still, gone] = run([
      { at: T0, conditions: [noHolder()] },
      { at: T0 + 29_999, conditions: [noHolder()] },
      { at: T0 + 30_000, conditions: [noHolder()] },
      { at: T0 + 35_000, conditions: [noHolder()] },
      { at: T0 + 40_000, conditions: [] },
    ]);
    expect(first!.alerts.map((a) => a.state)).toEqual(["pending"]);
    expect(first!.notify).toEqual([]);
    expect(early!.alerts[0]!.state).toBe("pending");
    expect(fired!.alerts[0]).toMatchObject({ state: "firing", activeAt: T0, firedAt: T0 + 30_000 });
    expect(fired!.notify).toEqual([{ fingerprint: fingerprintOf(noHolder().labels), kind: "firing" }]);
    expect(still!.notify).toEqual([]);
    expect(gone!.alerts[0]).toMatchObject({ state: "resolved", resolvedAt: T0 + 40_000 });
    expect(gone!.notify.map((n) => n.kind)).toEqual(["resolved"]);
    expect([first, early, fired, still, gone].flatMap((r) => r!.transitions.map((t) => `${t.from}->${t.to}`))).toEqual([
      "null->pending",
      "pending->firing",
      "firing->resolved",
    ]);
  });

  it("counts `for` from when the condition began, when the data says so (never from the future)", () => {
    const [first] = run([{ at: T0, conditions: [{ ...noHolder(), since: T0 - 30_000 }] }]);
    expect(first!.alerts[0]).toMatchObject({ state: "firing", activeAt: T0 - 30_000 });
    const [ahead] = run([{ at: T0, conditions: [{ ...noHolder(), since: T0 + 5_000 }] }]);
    expect(ahead!.alerts[0]).toMatchObject({ state: "pending", activeAt: T0 });
  });

  it("fires at once when `for` is 0", () => {
    const rules = { ...config.rules, "no-holder": { ...config.rules["no-holder"], forMs: 0 } };
    const [only] = run([{ at: T0, conditions: [noHolder()] }], rules);
    expect(only!.alerts[0]!.state).toBe("firing");
    expect(only!.notify.map((n) => n.kind)).toEqual(["firing"]);
  });

  it("drops a pending alert whose condition clears, without a notification", () => {
    const [, cleared] = run([
      { at: T0, conditions: [noHolder()] },
      { at: T0 + 5_000, conditions: [] },
    ]);
    expect(cleared!.alerts).toEqual([]);
    expect(cleared!.dropped).toHaveLength(1);
    expect(cleared!.notify).toEqual([]);
  });

  it("re-sends a firing alert to Alertmanager every resend interval, not to every receiver", () => {
    const steps = [0, 30_000, 60_000, 89_999, 90_000, 150_000].map((dt) => ({ at: T0 + dt, conditions: [noHolder()] }));
    const results = run(steps);
    expect(results.map((r) => r.resend.length)).toEqual([0, 0, 0, 0, 1, 1]);
    expect(results.flatMap((r) => r.notify)).toHaveLength(1);
  });

  it("starts a new incident after a resolution", () => {
    const results = run([
      { at: T0, conditions: [noHolder()] },
      { at: T0 + 30_000, conditions: [noHolder()] },
      { at: T0 + 35_000, conditions: [] },
      { at: T0 + 40_000, conditions: [noHolder()] },
    ]);
    expect(results[3]!.alerts[0]).toMatchObject({ state: "pending", activeAt: T0 + 40_000, firedAt: null });
  });

  it("keeps incidents of different places apart and counts a place found twice once", () => {
    const [only] = run([{ at: T0, conditions: [noHolder("a"), noHolder("b"), noHolder("a")] }]);
    expect(only!.alerts).toHaveLength(2);
  });

  it("ignores a disabled rule and resolves its open alerts", () => {
    const rules = { ...config.rules, "no-holder": { ...config.rules["no-holder"], forMs: 0 } };
    const off = { ...rules, "no-holder": { ...rules["no-holder"], isEnabled: false } };
    const [fired] = run([{ at: T0, conditions: [noHolder()] }], rules);
    const next = evaluateAlerts({ nowMs: T0 + 5_000, rules: off, open: fired!.alerts, conditions: [noHolder()], resendMs: 60_000 });
    expect(next.alerts.map((a) => a.state)).toEqual(["resolved"]);
  });
});
