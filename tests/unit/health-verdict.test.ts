import { describe, expect, it } from "vitest";

import { EVALUATOR_SILENT_MS, type FiringAlert, type HealthVerdict, judgeHealth, type VerdictInput } from "@/lib/health/health-verdict";
import { renderVerdict } from "@/lib/metrics/render-verdict";

// The one verdict: judged from the firing alerts and the evaluator's heartbeat, shown by the
// header, the Alerts menu item, /api/health and /metrics alike.

const NOW = Date.parse("2026-11-27T19:06:00.000Z");
const alive = NOW - 2_000;
const reachable = { isReachable: true, reason: null };

const expired: FiringAlert = {
  rule: "expired-while-held",
  severity: "critical",
  cluster: "redis-main",
  summary: "Lock expired while held: scheduler:leader (redis-main)",
};
const noHolder: FiringAlert = { rule: "no-holder", severity: "critical", cluster: "prod", summary: "No holder: billing on orders (prod)" };
const staleRedis: FiringAlert = { rule: "stale", severity: "warning", cluster: "redis-main", summary: "Source stale: redis-main" };
const staleZk: FiringAlert = { rule: "stale", severity: "warning", cluster: "zk", summary: "Source stale: zk" };
const noPoller: FiringAlert = { rule: "no-poller", severity: "critical", cluster: "etcd", summary: "No poller: etcd" };

const input = (patch: Partial<VerdictInput>): VerdictInput => ({
  nowMs: NOW,
  database: reachable,
  firing: [],
  pending: 0,
  evaluatorHeartbeatMs: alive,
  ...patch,
});

describe("judgeHealth", () => {
  const cases: { name: string; input: VerdictInput; expected: Partial<HealthVerdict> }[] = [
    {
      name: "nothing fires, the evaluator is alive: green",
      input: input({}),
      expected: { status: "ok", headline: "Nothing firing", firing: { critical: 0, warning: 0, total: 0 }, problems: [] },
    },
    {
      name: "pending alerts alone stay green, and are told",
      input: input({ pending: 2 }),
      expected: { status: "ok", headline: "Nothing firing", pending: 2, problems: ['2 alerts pending (the condition holds, not yet for its rule\'s "for")'] },
    },
    {
      name: "critical alerts: the count by severity, worst first",
      input: input({ firing: [staleRedis, expired, noHolder] }),
      expected: {
        status: "critical",
        headline: "2 critical · 1 warning firing",
        firing: { critical: 2, warning: 1, total: 3 },
        staleSources: ["redis-main"],
        problems: [
          "critical: Lock expired while held: scheduler:leader (redis-main)",
          "critical: No holder: billing on orders (prod)",
          "warning: Source stale: redis-main",
        ],
      },
    },
    {
      name: "warnings only",
      input: input({ firing: [staleZk, staleRedis] }),
      expected: { status: "warning", headline: "2 warning firing", staleSources: ["redis-main", "zk"] },
    },
    { name: "no poller is named", input: input({ firing: [noPoller] }), expected: { status: "critical", noPoller: ["etcd"], headline: "1 critical firing" } },
    {
      name: "a silent evaluator: unknown, never green",
      input: input({ evaluatorHeartbeatMs: NOW - EVALUATOR_SILENT_MS - 1_000 }),
      expected: {
        status: "unknown",
        headline: "No worker",
        problems: ["no Baton worker has evaluated the alert rules for 31 s: is the worker running? What is shown may be out of date"],
      },
    },
    { name: "an evaluator that never ran", input: input({ evaluatorHeartbeatMs: null }), expected: { status: "unknown", headline: "No worker" } },
    {
      name: "a silent evaluator with warnings firing: unknown outranks warning",
      input: input({ evaluatorHeartbeatMs: null, firing: [staleZk] }),
      expected: { status: "unknown", headline: "No worker · 1 warning firing" },
    },
    {
      name: "a silent evaluator with a critical firing: critical",
      input: input({ evaluatorHeartbeatMs: null, firing: [expired] }),
      expected: { status: "critical", headline: "No worker · 1 critical firing" },
    },
    {
      name: "the database down: unknown, with why",
      input: input({ database: { isReachable: false, reason: "connect ECONNREFUSED 127.0.0.1:5432" } }),
      expected: {
        status: "unknown",
        headline: "Database down",
        problems: ["Baton's database does not answer (connect ECONNREFUSED 127.0.0.1:5432): nothing can be judged"],
      },
    },
    {
      name: "the alerts unreadable although the database answers: unknown, not 'database down'",
      input: input({ readError: 'relation "alert" does not exist' }),
      expected: {
        status: "unknown",
        headline: "Health unknown",
        problems: ['the alerts could not be read (relation "alert" does not exist): nothing can be judged'],
      },
    },
  ];
  it.each(cases)("$name", ({ input: given, expected }) => {
    expect(judgeHealth(given)).toMatchObject(expected);
  });
});

describe("the verdict in /metrics", () => {
  it("exports the header's counts and its status, one series each", () => {
    const lines = renderVerdict(judgeHealth(input({ firing: [expired, staleRedis] }))).split("\n");
    expect(lines).toContain('baton_alerts_firing{severity="critical"} 1');
    expect(lines).toContain('baton_alerts_firing{severity="warning"} 1');
    expect(lines).toContain('baton_health_status{status="critical"} 1');
    expect(lines).toContain('baton_health_status{status="ok"} 0');
  });
});
