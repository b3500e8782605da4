import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GET as getConsumer } from "@/app/api/v1/consumers/[name]/route";
import { GET as getChanges } from "@/app/api/v1/locks/changes/route";
import { GET as getLocks } from "@/app/api/v1/locks/route";
import { GET as getTimeline } from "@/app/api/v1/locks/timeline/route";
import type { LocksBoard } from "@/lib/board/lock-types";
import { compareText } from "@/lib/compare-text";
import type { ConsumerReport } from "@/lib/consumers/get-consumer";
import type { LockTimeline } from "@/lib/locks/get-lock-timeline";
import type { LockChangePage } from "@/lib/locks/list-lock-changes";
import { answer, CLUSTER, createCluster, createResource, LOCK_CLUSTER, openDb, RUN } from "@/tests/integration/read-api/read-api-kit";
import { createLockCluster, holdChange, holdState, saveLocks } from "@/tests/integration/read-api/lock-seed";

const db = openDb();
const MINUTE = 60_000;
const now = Date.now();
const k = (name: string) => `lock:${name}-${RUN}`;
const LEADER = `leader:scheduler-${RUN}`;

const get = (handler: (request: Request, context: object) => Promise<Response>, path: string, params: Record<string, string>) =>
  answer(handler(new Request(`http://127.0.0.1/api/v1/locks${path}?${new URLSearchParams(params)}`), {}));
const locks = (params: Record<string, string> = {}) => get(getLocks, "", params);
const timeline = (params: Record<string, string>) => get(getTimeline, "/timeline", params);
const changes = (params: Record<string, string>) => get(getChanges, "/changes", params);

beforeAll(async () => {
  // A Pulsar cluster beside it: its subscription partitions are not locks.
  const pulsarId = await createCluster(db, CLUSTER);
  await createResource(db, pulsarId, { topic: `persistent://t${RUN}/ns/orders`, subscription: "billing", holder: "pod-a" });

  const clusterId = await createLockCluster(db, LOCK_CLUSTER, [
    { match: "lock:*", layout: "token", mustBeHeld: false },
    { match: "leader:*", layout: "redisson", mustBeHeld: true },
  ]);
  const busy = Array.from({ length: 7 }, (_, i) =>
    holdChange({ key: k("busy"), kind: "HOLDER_CHANGED", from: `w${i}`, to: `w${i + 1}`, atMs: now - (8 - i) * MINUTE, ending: "RELEASED" }),
  );
  await saveLocks(
    db,
    clusterId,
    [
      // A 10-minute TTL: pod-b has not yet held it one TTL, so the expiry 5 minutes ago is still a finding.
      holdState({ key: k("daily-job"), pattern: "lock:*", holder: "pod-b", holderSinceMs: now - 5 * MINUTE, ttlMs: 10 * MINUTE }, now),
      holdState(
        { key: k("fair"), pattern: "lock:*", holder: "pod-c", waiters: ["w1", "w2", "w3", "w4", "w5"], details: { layout: "redisson", reentrancy: 2 } },
        now,
      ),
      holdState({ key: k("split"), pattern: "lock:*", holder: null, isSplit: true }, now),
      holdState({ key: LEADER, pattern: "leader:*", holder: null }, now),
      holdState({ key: k("stale"), pattern: "lock:*", holder: "pod-d", staleSinceMs: now - MINUTE, lastError: "connect ECONNREFUSED 127.0.0.1:6390" }, now),
      holdState({ key: k("gone"), pattern: "lock:*", holder: null, goneAtMs: now - 2 * MINUTE }, now),
      holdState({ key: k("busy"), pattern: "lock:*", holder: "w7" }, now),
    ],
    [
      holdChange({ key: k("daily-job"), kind: "HOLDER_APPEARED", from: null, to: "pod-z", atMs: now - 90 * MINUTE }),
      holdChange({
        key: k("daily-job"),
        kind: "HOLDER_CHANGED",
        from: "pod-z",
        to: "pod-a",
        atMs: now - 40 * MINUTE,
        ending: "RELEASED",
        heldSinceMs: now - 90 * MINUTE,
      }),
      holdChange({
        key: k("daily-job"),
        kind: "HOLDER_CHANGED",
        from: "pod-a",
        to: "pod-b",
        atMs: now - 5 * MINUTE,
        ending: "EXPIRED",
        heldSinceMs: now - 40 * MINUTE,
        expiresAtBeforeMs: now - 5 * MINUTE - 2_000,
      }),
      ...busy,
    ],
    now,
  );
});

afterAll(async () => {
  await db.cluster.deleteMany({ where: { name: { in: [CLUSTER, LOCK_CLUSTER] } } });
  await db.$disconnect();
});

describe("GET /api/v1/locks", () => {
  it("lists every lock of the lock clusters, worst first, with holder, expiry, waiters, last change and health", async () => {
    const { status, body } = await locks();
    expect(status).toBe(200);
    const board = body as unknown as LocksBoard;
    expect(board.clusters).toEqual([expect.objectContaining({ name: LOCK_CLUSTER, sourceKind: "redis", resourceCount: 6, isSilent: false })]);
    const byKey = new Map(board.locks.map((l) => [l.key, l]));
    expect([...byKey.keys()].sort()).toEqual([LEADER, k("busy"), k("daily-job"), k("fair"), k("split"), k("stale")].sort());

    const daily = byKey.get(k("daily-job"))!;
    expect(daily).toMatchObject({
      cluster: LOCK_CLUSTER,
      sourceKind: "redis",
      resourceKind: "REDIS_LOCK",
      pattern: "lock:*",
      layout: "token",
      holder: "pod-b",
      expiriesInHour: 1,
      health: "critical",
    });
    expect(daily.lastChange).toMatchObject({ kind: "HOLDER_CHANGED", ending: "EXPIRED", fromHolder: "pod-a", toHolder: "pod-b" });
    expect(daily.flags.map((f) => f.rule)).toEqual(["expired-while-held"]);
    expect(daily.ended).toEqual([]);
    expect(daily.flags[0]!.detail).toContain("the lock expired while pod-a held it");
    expect(Date.parse(daily.expiresAt!)).toBeGreaterThan(now);

    expect(byKey.get(k("fair"))).toMatchObject({ waiters: ["w1", "w2", "w3", "w4", "w5"], details: { layout: "redisson", reentrancy: 2 }, health: "warning" });
    expect(byKey.get(k("fair"))!.flags[0]).toMatchObject({ rule: "waiters", label: "Long queue: 5 waiters" });
    // Next in line: the fair lock's queue head; a SET NX lock has no queue, and says so.
    expect(byKey.get(k("fair"))!.next).toEqual({ holder: "w1", reason: null, detail: null });
    expect(byKey.get(k("daily-job"))!.next).toMatchObject({ holder: null, reason: "no-queue" });
    expect(byKey.get(k("split"))!.flags.map((f) => f.rule)).toEqual(["redlock-split"]);
    expect(byKey.get(LEADER)).toMatchObject({ isMustBeHeld: true, layout: "redisson", health: "critical" });
    expect(byKey.get(LEADER)!.flags.map((f) => f.rule)).toEqual(["no-holder"]);
    expect(byKey.get(k("stale"))).toMatchObject({ holder: "pod-d", health: "unknown" });
    expect(byKey.get(k("stale"))!.staleSince).not.toBeNull();
    // Seven changes in the window, but w7 has kept it since the last one, 2 minutes (more than one
    // 30 s TTL): the churn has ended, and the lock says so.
    expect(byKey.get(k("busy"))).toMatchObject({ changesInWindow: 7, health: "ok", flags: [] });
    expect(byKey.get(k("busy"))!.ended).toEqual([
      expect.objectContaining({
        rule: "lock-churn",
        text: expect.stringMatching(/^settled: 7 holder changes in 10 min, then w7 held it from \d\d:\d\d:\d\d UTC on$/),
      }),
    ]);

    // In name order, whatever their health: a lock keeps its place between refreshes.
    const names = board.locks.map((l) => [l.cluster, l.key] as const);
    expect(names).toEqual([...names].sort((a, b) => compareText(a[0], b[0]) || compareText(a[1], b[1])));
  });

  it.each([
    ["one cluster", { cluster: LOCK_CLUSTER }, 6],
    ["a Pulsar cluster holds no lock", { cluster: CLUSTER }, 0],
    ["kind redis", { kind: "redis" }, 6],
    ["kind zookeeper", { kind: "zookeeper" }, 0],
    ["a pattern", { pattern: "leader:*" }, 1],
    ["a key substring", { q: `split-${RUN}` }, 1],
    ["a holder, any case", { q: "POD-C" }, 1],
    ["gone ones too", { includeGone: "true" }, 7],
  ])("filters: %s", async (_name, params, count) => {
    const { status, body } = await locks(params);
    expect(status).toBe(200);
    expect((body as unknown as LocksBoard).locks.filter((l) => l.key.endsWith(RUN))).toHaveLength(count);
  });

  it.each([
    ["an unknown kind", { kind: "mysql" }, "kind", "must be one of"],
    ["a cluster nobody configured", { cluster: "nowhere" }, "cluster", "names no configured cluster"],
    ["a bad boolean", { includeGone: "yes" }, "includeGone", 'must be "true" or "false"'],
    ["an unknown parameter", { holder: "pod-a" }, "holder", "is not a known parameter"],
    ["an empty pattern", { pattern: " " }, "pattern", "must not be empty"],
  ])("refuses %s with a 400 naming the field", async (_name, params, field, message) => {
    const { status, body } = await locks(params);
    expect(status).toBe(400);
    expect(body.error!.code).toBe("invalid_request");
    expect(body.error!.details!.issues[0]).toEqual({ field, message: expect.stringContaining(message) });
  });
});

describe("GET /api/v1/locks/timeline", () => {
  it("draws one lane for a key: tenures with the unobserved interval of each change, and markers with their ending", async () => {
    const { status, body } = await timeline({ cluster: LOCK_CLUSTER, key: k("daily-job"), from: String(now - 2 * 60 * MINUTE), to: String(now) });
    expect(status).toBe(200);
    const result = body as unknown as LockTimeline;
    expect(result.locks.map((l) => l.key)).toEqual([k("daily-job")]);
    expect(result.timeline.lanes).toHaveLength(1);
    const lane = result.timeline.lanes[0]!;
    expect(lane.label).toBe(k("daily-job"));
    expect(lane.segments.filter((s) => s.kind === "held").map((s) => s.holder)).toEqual(["pod-z", "pod-a", "pod-b"]);
    expect(lane.segments.filter((s) => s.kind === "unobserved").length).toBeGreaterThanOrEqual(3);
    expect(result.timeline.markers.map((m) => [m.kind, m.ending ?? null])).toEqual([
      ["HOLDER_APPEARED", null],
      ["HOLDER_CHANGED", "RELEASED"],
      ["HOLDER_CHANGED", "EXPIRED"],
    ]);
    expect(result.timeline.consumers).toEqual(["pod-a", "pod-b", "pod-z"]);
  });

  it("draws a lane per lock of a pattern, in key order", async () => {
    const { body } = await timeline({ cluster: LOCK_CLUSTER, pattern: "lock:*" });
    const result = body as unknown as LockTimeline;
    const labels = result.timeline.lanes.map((l) => l.label).filter((label) => label.endsWith(RUN));
    expect(labels).toEqual([k("busy"), k("daily-job"), k("fair"), k("gone"), k("split"), k("stale")]);
    expect(result.locks.map((l) => l.key).filter((key) => key.endsWith(RUN))).toEqual(labels);
    expect(result.hiddenLockCount).toBe(0);
  });

  it("answers 404 for a lock Baton has not seen", async () => {
    const { status, body } = await timeline({ cluster: LOCK_CLUSTER, key: "lock:nothing-here" });
    expect(status).toBe(404);
    expect(body.error!.message).toContain("lock:nothing-here");
  });

  it.each([
    ["neither key nor pattern", { cluster: LOCK_CLUSTER }, "key", "is required (or pattern)"],
    ["both key and pattern", { cluster: LOCK_CLUSTER, key: "a", pattern: "lock:*" }, "pattern", "must not be given with key"],
    ["no cluster", { key: "a" }, "cluster", "is required"],
    ["from after to", { cluster: LOCK_CLUSTER, key: "a", from: String(now), to: String(now - MINUTE) }, "from", "must be before to"],
    ["a bad deployments choice", { cluster: LOCK_CLUSTER, key: "a", deployments: "some" }, "deployments", 'must be "matched" or "all"'],
  ])("refuses %s with a 400 naming the field", async (_name, params, field, message) => {
    const { status, body } = await timeline(params);
    expect(status).toBe(400);
    expect(body.error!.details!.issues[0]).toEqual({ field, message });
  });
});

describe("GET /api/v1/locks/changes", () => {
  it("lists a lock's changes newest first, each with its ending and details", async () => {
    const { status, body } = await changes({ cluster: LOCK_CLUSTER, key: k("daily-job"), from: String(now - 2 * 60 * MINUTE) });
    expect(status).toBe(200);
    const page = body as unknown as LockChangePage;
    expect(page.total).toBe(3);
    expect(page.nextCursor).toBeNull();
    expect(page.changes.map((c) => [c.key, c.fromHolder, c.toHolder, c.ending])).toEqual([
      [k("daily-job"), "pod-a", "pod-b", "EXPIRED"],
      [k("daily-job"), "pod-z", "pod-a", "RELEASED"],
      [k("daily-job"), null, "pod-z", null],
    ]);
    expect(page.changes[0]!.details).toMatchObject({
      heldSince: new Date(now - 40 * MINUTE).toISOString(),
      expiresAtBefore: new Date(now - 5 * MINUTE - 2_000).toISOString(),
    });
  });

  it("pages through a busy lock with the cursor, without repeating or missing a change", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const { body } = await changes({ cluster: LOCK_CLUSTER, key: k("busy"), limit: "3", ...(cursor ? { cursor } : {}) });
      const page = body as unknown as LockChangePage;
      expect(page.total).toBe(7);
      seen.push(...page.changes.map((c) => c.toHolder!));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(["w7", "w6", "w5", "w4", "w3", "w2", "w1"]);
  });

  it("lists a pattern's changes across its locks", async () => {
    const { body } = await changes({ cluster: LOCK_CLUSTER, pattern: "lock:*", limit: "1000" });
    const keys = new Set((body as unknown as LockChangePage).changes.map((c) => c.key));
    expect(keys).toEqual(new Set([k("daily-job"), k("busy")]));
  });

  it.each([
    ["a zero limit", { cluster: LOCK_CLUSTER, key: "a", limit: "0" }, "limit", "must be at least 1"],
    ["a made-up cursor", { cluster: LOCK_CLUSTER, key: "a", cursor: "page-2" }, "cursor", "must be a cursor from a previous answer's nextCursor"],
    ["a cluster nobody configured", { cluster: "nowhere", key: "a" }, "cluster", "names no configured cluster (configured: "],
  ])("refuses %s with a 400 naming the field", async (_name, params, field, message) => {
    const { status, body } = await changes(params);
    expect(status).toBe(400);
    expect(body.error!.details!.issues[0]).toEqual({ field, message: expect.stringContaining(message) });
  });
});

describe("GET /api/v1/consumers/{name}: locks beside partitions", () => {
  const consumer = async (name: string) =>
    (await answer(getConsumer(new Request(`http://127.0.0.1/api/v1/consumers/${name}`), { params: Promise.resolve({ name }) })))
      .body as unknown as ConsumerReport;

  it("lists the locks a name holds, and where it waits in a queue, apart from its partitions", async () => {
    const holder = await consumer("pod-c");
    expect(holder.positions).toEqual([]);
    expect(holder.locks).toEqual([expect.objectContaining({ cluster: LOCK_CLUSTER, key: k("fair"), role: "holder", queuePosition: null, waiterCount: 5 })]);
    const waiter = await consumer("w3");
    expect(waiter.locks.filter((l) => l.key.endsWith(RUN))).toEqual([
      expect.objectContaining({ key: k("fair"), role: "waiter", queuePosition: 3, holder: "pod-c" }),
    ]);
  });

  it("keeps lock changes out of a name's partition history", async () => {
    const report = await consumer("pod-a");
    expect(report.history.every((c) => c.cluster !== LOCK_CLUSTER)).toBe(true);
    expect(report.positions.map((p) => p.cluster)).toEqual([CLUSTER]);
  });
});
