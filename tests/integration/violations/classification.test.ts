import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { deploymentWindow, isInsideWindows, isViolationInside, windowsByService, type DeploymentTimes } from "@/lib/deployments/deployment-windows";
import { getTopViolations } from "@/lib/violations/queries/get-top-violations";
import { getViolationTimeline } from "@/lib/violations/queries/get-violation-timeline";
import { listDeploymentCoincidences } from "@/lib/violations/queries/list-deployment-coincidences";
import { bucketIndexOf, buildBuckets, chooseBucketMs } from "@/lib/violations/time-buckets";
import {
  createDeployment,
  MINUTE,
  openDb,
  openIngestPool,
  uniquePrefix,
  writeTestEvents,
  type EventInput,
} from "@/tests/integration/violations/violations-test-kit";

// The classification in SQL (rollup minutes against range_agg'd windows) must agree with the
// pure rule (lib/deployments/deployment-windows.ts) applied to every raw event, on random data
// with overlapping, open, back-to-back and other-environment deployments.

const db = openDb();
const pool = openIngestPool();
const GRACE = 5 * MINUTE;
const NOW = Math.floor(Date.now() / MINUTE) * MINUTE - 7 * MINUTE + 13_457;
const FROM = NOW - 6 * 60 * MINUTE;
const services = [uniquePrefix("cls-a"), uniquePrefix("cls-b")];
const subscriptions = ["sub-1", "sub-2", null];

/** A small deterministic generator: the same data on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const deployments: (DeploymentTimes & { environment: string; id?: string })[] = [];
const events: EventInput[] = [];

beforeAll(async () => {
  const next = random(42);
  for (let i = 0; i < 16; i++) {
    const service = services[i % 2]!;
    const startedAtMs = FROM + Math.floor(next() * 6 * 60 * MINUTE) + Math.floor(next() * 60_000);
    const isOpen = i === 3 || i === 10;
    const finishedAtMs = isOpen ? null : startedAtMs + Math.floor(next() * 25 * MINUTE) + 1_234;
    deployments.push({ service, startedAtMs, finishedAtMs, environment: i % 5 === 0 ? "staging" : "production" });
  }
  // Back to back: one ends the millisecond before the next starts.
  deployments.push({ service: services[0]!, startedAtMs: FROM + 60 * MINUTE + 30_500, finishedAtMs: FROM + 70 * MINUTE + 10_000, environment: "production" });
  deployments.push({ service: services[0]!, startedAtMs: FROM + 70 * MINUTE + 10_001, finishedAtMs: FROM + 72 * MINUTE, environment: "production" });
  for (const d of deployments) d.id = await createDeployment(db, d);

  for (let i = 0; i < 3_000; i++) {
    const subscription = subscriptions[Math.floor(next() * 3)]!;
    events.push({
      service: services[Math.floor(next() * 2)]!,
      key: `key-${Math.floor(next() * 40)}`,
      worker: `worker-${Math.floor(next() * 5)}`,
      counter: next() < 0.3 ? 1 + Math.floor(next() * 2) : 0,
      subscription,
      topic: subscription === null ? null : "persistent://acme/cls/events",
      partition: subscription === null ? null : 1,
      observedAtMs: FROM + Math.floor(next() * 6 * 60 * MINUTE),
    });
  }
  await writeTestEvents(pool, events);
});

afterAll(async () => {
  await db.exclusivityEvent.deleteMany({ where: { service: { in: services } } });
  await db.violationMinute.deleteMany({ where: { service: { in: services } } });
  await db.deployment.deleteMany({ where: { service: { in: services } } });
  await Promise.all([db.$disconnect(), pool.end()]);
});

function expected(filter: { service: string; subscription?: string | null; environment?: string }) {
  const windows = windowsByService(
    deployments.filter((d) => filter.environment === undefined || d.environment === filter.environment),
    GRACE,
    NOW,
  );
  const violations = events.filter(
    (e) => e.service === filter.service && e.counter > 0 && (filter.subscription === undefined || (e.subscription ?? "") === filter.subscription),
  );
  const inside = violations.filter((e) => isViolationInside(e.service, e.observedAtMs, windows));
  return { violations, inside: inside.length, outside: violations.length - inside.length };
}

describe("classification: SQL against the pure rule", () => {
  it.each([
    ["UTC", "UTC"],
    ["Kathmandu (+05:45)", "Asia/Kathmandu"],
    ["Berlin", "Europe/Berlin"],
  ])("classifies every violation of each service alike, per bucket, in %s", async (_label, timeZone) => {
    for (const service of services) {
      const want = expected({ service });
      const timeline = await getViolationTimeline(db, {
        fromMs: FROM,
        toMs: NOW,
        timeZone,
        service,
        subscription: null,
        environment: null,
        graceMs: GRACE,
        nowMs: NOW,
      });
      expect(timeline.totals).toEqual({ violations: want.violations.length, inside: want.inside, outside: want.outside });

      const buckets = buildBuckets({ fromMs: FROM, toMs: NOW, bucketMs: chooseBucketMs(NOW - FROM), timeZone, nowMs: NOW });
      const windows = windowsByService(deployments, GRACE, NOW);
      // A bucket the service reported nothing in is null; one with events but no violation, zeros.
      const perBucket: ({ violations: number; inside: number; outside: number } | null)[] = buckets.map(() => null);
      for (const e of events) if (e.service === service) perBucket[bucketIndexOf(buckets, e.observedAtMs)] ??= { violations: 0, inside: 0, outside: 0 };
      for (const e of want.violations) {
        const counts = perBucket[bucketIndexOf(buckets, e.observedAtMs)]!;
        const isInside = isViolationInside(e.service, e.observedAtMs, windows);
        counts.violations += 1;
        counts.inside += isInside ? 1 : 0;
        counts.outside += isInside ? 0 : 1;
      }
      expect(timeline.buckets.map((b) => b.start)).toEqual(buckets.map((b) => new Date(b.start).toISOString()));
      expect(timeline.buckets.map((b) => b.total)).toEqual(perBucket);
    }
  });

  it("filters by subscription (events without one are the empty subscription) and by deployment environment", async () => {
    const service = services[0]!;
    for (const subscription of ["sub-2", ""]) {
      const want = expected({ service, subscription });
      const timeline = await getViolationTimeline(db, {
        fromMs: FROM,
        toMs: NOW,
        timeZone: "UTC",
        service,
        subscription,
        environment: null,
        graceMs: GRACE,
        nowMs: NOW,
      });
      expect(timeline.totals).toEqual({ violations: want.violations.length, inside: want.inside, outside: want.outside });
    }
    const want = expected({ service, environment: "production" });
    const production = await getViolationTimeline(db, {
      fromMs: FROM,
      toMs: NOW,
      timeZone: "UTC",
      service,
      subscription: null,
      environment: "production",
      graceMs: GRACE,
      nowMs: NOW,
    });
    expect(production.totals).toEqual({ violations: want.violations.length, inside: want.inside, outside: want.outside });
    expect(production.deployments.every((d) => d.environment === "production")).toBe(true);
  });

  it("ranks keys and workers from raw events with the same classification", async () => {
    const service = services[1]!;
    const top = await getTopViolations(db, {
      fromMs: FROM,
      toMs: NOW,
      timeZone: "UTC",
      service,
      subscription: null,
      environment: null,
      graceMs: GRACE,
      nowMs: NOW,
      limit: 100,
      ranking: "violations",
      lists: ["keys", "workers", "services"],
    });
    const windows = windowsByService(deployments, GRACE, NOW);
    const byKey = new Map<string, { violations: number; inside: number }>();
    for (const e of expected({ service }).violations) {
      const entry = byKey.get(e.key) ?? { violations: 0, inside: 0 };
      entry.violations += 1;
      entry.inside += isViolationInside(e.service, e.observedAtMs, windows) ? 1 : 0;
      byKey.set(e.key, entry);
    }
    expect(new Map(top.keys!.map((k) => [k.name, { violations: k.violations, inside: k.inside }]))).toEqual(byKey);
    expect(top.keys!.map((k) => k.violations)).toEqual([...top.keys!.map((k) => k.violations)].sort((a, b) => b - a));
    const want = expected({ service });
    expect(top.services).toEqual([{ name: service, violations: want.violations.length, inside: want.inside, outside: want.outside }]);
    expect(top.workers!.reduce((sum, w) => sum + w.violations, 0)).toBe(expected({ service }).violations.length);
  });

  it("counts, per deployment, the violations of its service inside its own window", async () => {
    const list = await listDeploymentCoincidences(db, {
      fromMs: FROM - 60 * MINUTE,
      toMs: NOW,
      service: services[0]!,
      environment: null,
      limit: 100,
      graceMs: GRACE,
      nowMs: NOW,
    });
    const mine = deployments.filter((d) => d.service === services[0]);
    expect(list.total).toBe(mine.length);
    for (const d of list.deployments) {
      const source = mine.find((m) => m.id === d.id)!;
      const window = deploymentWindow(source, GRACE, NOW);
      const want = events.filter((e) => e.service === source.service && e.counter > 0 && isInsideWindows(e.observedAtMs, [window])).length;
      expect({ id: d.id, violations: d.violations }).toEqual({ id: d.id, violations: want });
      expect(d.windowEnd).toBe(new Date(window.end).toISOString());
    }
  });

  it("answers an empty range with empty buckets, not an error", async () => {
    const timeline = await getViolationTimeline(db, {
      fromMs: FROM - 48 * 60 * MINUTE,
      toMs: FROM - 47 * 60 * MINUTE,
      timeZone: "UTC",
      service: services[0]!,
      subscription: null,
      environment: null,
      graceMs: GRACE,
      nowMs: NOW,
    });
    expect(timeline.totals).toEqual({ violations: 0, inside: 0, outside: 0 });
    expect(timeline.buckets.every((b) => b.total === null)).toBe(true);
    expect(timeline.trend.direction).toBe("unobserved");
  });
});
