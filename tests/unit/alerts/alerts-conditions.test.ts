import { describe, expect, it } from "vitest";

import { parseAlertsConfig } from "@/lib/alerts/alert-config";
import { type ConditionInput, findConditions } from "@/lib/alerts/find-conditions";
import type { HealthFlag, LeadersBoard, SubscriptionGroup } from "@/lib/board/board-types";
import type { LocksBoard, LockRow } from "@/lib/board/lock-types";

const NOW = 1_700_000_000_000;
const iso = (ms: number) => new Date(ms).toISOString();
const flag = (rule: HealthFlag["rule"], since: string | null = null): HealthFlag => ({
  rule,
  severity: "critical",
  label: rule,
  detail: `${rule} detail`,
  since,
});

function group(flags: HealthFlag[]): SubscriptionGroup {
  return {
    key: "k",
    cluster: "prod",
    tenant: "t",
    namespace: "t/ns",
    topic: "persistent://t/ns/orders",
    subscription: "billing",
    subscriptionType: "Failover",
    isPartitioned: false,
    partitions: [],
    holders: [],
    consumers: [],
    idleConsumers: [],
    heldCount: 0,
    staleCount: 0,
    backlog: null,
    lastChangeAt: iso(NOW - 4_000),
    latestHolderSince: null,
    health: "critical",
    flags,
  };
}

function lock(flags: HealthFlag[]): LockRow {
  return {
    id: "redis|lock:a",
    cluster: "redis",
    sourceKind: "redis",
    resourceKind: "REDIS_LOCK",
    key: "lock:a",
    pattern: "lock:*",
    lastChange: { at: iso(NOW - 9_000) },
    flags,
  } as unknown as LockRow;
}

function input(overrides: Partial<ConditionInput> = {}): ConditionInput {
  const { rules } = parseAlertsConfig({
    rulesJson: { violations: { threshold: 5 } },
    webhooksJson: [],
    evaluationIntervalMs: 1_000,
    alertmanagerUrl: null,
    resendSeconds: 60,
    linkBaseUrl: "http://baton",
  });
  return {
    nowMs: NOW,
    rules,
    linkBaseUrl: "http://baton",
    leaders: { subscriptions: [] } as unknown as LeadersBoard,
    locks: { locks: [] } as unknown as LocksBoard,
    clusters: [{ name: "prod", kind: "pulsar", pollIntervalMs: 1_000, poller: { heartbeatAt: iso(NOW - 1_000) } as never }],
    violations: [],
    ...overrides,
  };
}

describe("findConditions", () => {
  it("raises the alert rule of each board flag, with labels, since and a link to the page that explains it", () => {
    const conditions = findConditions(
      input({
        leaders: {
          subscriptions: [group([flag("no-active-consumer"), flag("flapping"), flag("stuck-leader"), flag("idle-standbys")])],
        } as unknown as LeadersBoard,
      }),
    );
    expect(conditions.map((c) => c.labels.alertname)).toEqual(["no-holder", "flapping", "stuck"]);
    expect(conditions[0]).toMatchObject({
      labels: { cluster: "prod", kind: "pulsar-subscription", resource: "persistent://t/ns/orders", subscription: "billing" },
      since: NOW - 4_000,
      annotations: {
        summary: "No holder: billing on persistent://t/ns/orders (prod)",
        link: "http://baton/subscriptions?cluster=prod&topic=persistent%3A%2F%2Ft%2Fns%2Forders&subscription=billing",
      },
    });
  });

  it("maps the lock flags and names the lock's kind", () => {
    const conditions = findConditions(
      input({
        locks: {
          locks: [lock([flag("no-holder"), flag("expired-while-held", iso(NOW - 2_000)), flag("lock-churn"), flag("stuck-holder"), flag("waiters")])],
        } as unknown as LocksBoard,
      }),
    );
    expect(conditions.map((c) => c.labels.alertname)).toEqual(["no-holder", "expired-while-held", "flapping", "stuck"]);
    expect(conditions[0]).toMatchObject({ labels: { cluster: "redis", kind: "redis-lock", resource: "lock:a" }, since: NOW - 9_000 });
    expect(conditions[1]!.since).toBe(NOW - 2_000);
  });

  it("folds stale resources into one alert per cluster, since the earliest", () => {
    const leaders = { subscriptions: [group([flag("stale", iso(NOW - 50_000))]), group([flag("stale", iso(NOW - 70_000))])] } as unknown as LeadersBoard;
    const stale = findConditions(input({ leaders })).filter((c) => c.labels.alertname === "stale");
    expect(stale).toHaveLength(1);
    expect(stale[0]).toMatchObject({ labels: { cluster: "prod", kind: "pulsar" }, since: NOW - 70_000 });
    expect(stale[0]!.annotations.description).toMatch(/^2 resources of prod not current/);
  });

  it("raises stale for a cluster whose polls fail and read nothing, with no resource to flag; once per cluster", () => {
    const failing = (failingSince: string | null) => [
      {
        name: "prod",
        kind: "redis",
        pollIntervalMs: 1_000,
        poller: { heartbeatAt: iso(NOW - 1_000), failingSince, lastError: "connect ECONNREFUSED 127.0.0.1:6390" } as never,
      },
    ];
    const stale = (overrides: Partial<ConditionInput>) => findConditions(input(overrides)).filter((c) => c.labels.alertname === "stale");
    expect(stale({ clusters: failing(null) })).toEqual([]);
    const [alert, ...others] = stale({ clusters: failing(iso(NOW - 30_000)) });
    expect(others).toEqual([]);
    expect(alert).toMatchObject({
      labels: { alertname: "stale", cluster: "prod", kind: "redis" },
      since: NOW - 30_000,
      annotations: { summary: "Source stale: prod", link: "http://baton/?cluster=prod" },
    });
    expect(alert!.annotations.description).toBe(`polls of prod fail and read nothing since ${iso(NOW - 30_000)}: connect ECONNREFUSED 127.0.0.1:6390`);
    // Stale resources of the same cluster: one alert, theirs.
    const leaders = { subscriptions: [group([flag("stale", iso(NOW - 50_000))])] } as unknown as LeadersBoard;
    const both = stale({ leaders, clusters: failing(iso(NOW - 30_000)) });
    expect(both).toHaveLength(1);
    expect(both[0]!.annotations.description).toMatch(/^1 resource of prod not current/);
  });

  it("raises no-poller when the lease is missing or its heartbeat is older than the staleness limit", () => {
    const at = (heartbeatMs: number | null) =>
      findConditions(
        input({
          clusters: [
            {
              name: "prod",
              kind: "pulsar",
              pollIntervalMs: 1_000,
              poller: heartbeatMs === null ? undefined : ({ heartbeatAt: iso(heartbeatMs), pollerId: "w" } as never),
            },
          ],
        }),
      ).filter((c) => c.labels.alertname === "no-poller");
    expect(at(NOW - 10_000)).toEqual([]);
    expect(at(NOW - 10_001)).toHaveLength(1);
    expect(at(null)).toHaveLength(1);
  });

  it("raises violations per service above the threshold only", () => {
    const conditions = findConditions(
      input({
        violations: [
          { service: "orders", outside: 6 },
          { service: "billing", outside: 5 },
        ],
      }),
    );
    expect(conditions.map((c) => c.labels)).toEqual([{ alertname: "violations", service: "orders" }]);
    expect(conditions[0]!.annotations.link).toBe("http://baton/violations?service=orders");
  });

  it("counts a violations alert's violations by cause, in the pages' words: those to act on first, at the rule's severity", () => {
    const causes = { "two-hands": 0, rollout: 3, "holder-stalled": 0, "worker-stalled": 1, "failover-overlap": 4, unexplained: 1 };
    const [condition] = findConditions(input({ violations: [{ service: "orders", outside: 6, causes }] }));
    expect(condition!.severity).toBe("critical");
    expect(condition!.annotations.description).toBe(
      "6 violations outside deployments in the last 5 min (more than 5); 2 to act on: 1 worker stalled while another took its key, 1 unexplained; not to act on: 4 failover overlap",
    );
  });

  it("failover overlaps alone are a warning, never critical: the page counts them as not to act on", () => {
    const causes = { "two-hands": 0, rollout: 0, "holder-stalled": 0, "worker-stalled": 0, "failover-overlap": 26, unexplained: 0 };
    const [condition] = findConditions(input({ violations: [{ service: "user-orchestrator", outside: 26, causes }] }));
    expect(condition!.severity).toBe("warning");
    expect(condition!.annotations.description).toBe(
      "26 violations outside deployments in the last 5 min (more than 5), none to act on: 26 failover overlap (a handover's brief overlap)",
    );
  });

  it("skips disabled rules", () => {
    const base = input();
    const rules = { ...base.rules, "no-holder": { ...base.rules["no-holder"], isEnabled: false } };
    expect(findConditions({ ...base, rules, leaders: { subscriptions: [group([flag("no-active-consumer")])] } as unknown as LeadersBoard })).toEqual([]);
  });
});
