import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { Db } from "@/lib/db/client";
import type { BoardThresholds } from "@/lib/board/board-types";
import type { DetectedChange } from "@/lib/poller/change";
import type { HoldState } from "@/lib/poller/hold-state";
import { markStale } from "@/lib/poller/mark-gaps";
import { loadCycleStates, saveCycle } from "@/lib/poller/resource-store";
import type { CycleStates } from "@/lib/poller/source-cycles";
import { isMovingFiguresFlushDue } from "@/lib/poller/row-changes";
import { WrittenRows } from "@/lib/poller/written-rows";
import { ALL_LEADERS, listLeaders } from "@/lib/subscriptions/list-leaders";
import { ALL_LOCKS, listLocks } from "@/lib/locks/list-locks";
import type { ResourceState } from "@/lib/poller/contract/partition-state";
import { readHeldRows, writtenBetween } from "@/tests/support/held-rows";
import { createTestDb } from "@/tests/support/poller-harness";
import { getTestDatabaseUrl } from "@/tests/support/test-database";
import { consumer, observation, stateFrom } from "@/tests/unit/sources/pulsar/builders";

// The write path against the real PostgreSQL: a cycle writes only the rows that changed, and the
// board still shows every resource with the same flags and times as when every cycle rewrote
// every row. Each scenario runs twice, side by side: through the write-only-changed path, and
// through the old one (every touched row written, each with its own last observation, no sweep).

const THRESHOLDS: BoardThresholds = { flapChanges: 4, flapWindowMs: 600_000, stuckSamples: 3, recoveredAfterMs: null };
const run = Date.now().toString(36);
const BASE = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
const at = (s: number) => new Date(BASE + s * 1000).toISOString();

let db: Db;
type Side = { name: string; clusterId: number; written: WrittenRows | null };
const sides: Side[] = [];

async function createCluster(name: string, kind: "PULSAR" | "REDIS"): Promise<number> {
  const scope = kind === "REDIS" ? { patterns: [{ match: "lock:*", layout: "token", mustBeHeld: false }] } : {};
  const { id } = await db.cluster.create({ data: { name, kind, adminUrl: "http://127.0.0.1:9", pollIntervalMs: 5000, scope }, select: { id: true } });
  const now = new Date();
  await db.pollerLease.create({ data: { clusterId: id, epoch: 1n, pollerId: "test", acquiredAt: now, heartbeatAt: now }, select: { clusterId: true } });
  return id;
}

async function save(side: Side, states: CycleStates, cycleAt: number, options: { isFullSweep?: boolean; changes?: DetectedChange[] } = {}): Promise<void> {
  await saveCycle(db, {
    clusterId: side.clusterId,
    epoch: 1n,
    states,
    // The old path: no sweep, every touched row written with its own time.
    isFullSweep: side.written === null ? false : (options.isFullSweep ?? true),
    written: side.written ?? undefined,
    changes: options.changes ?? [],
    pollRun: { startedAt: at(cycleAt), finishedAt: at(cycleAt + 0.5), cycleMs: 5000, topicCount: 1, requestCount: 1, errors: [], pollerId: "test" },
  });
}

const partitions = [0, 1, 2, 3, 4];
function pulsarStates(topic: string, seenAt: string, overrides: (p: number) => Partial<ResourceState> = () => ({})): ResourceState[] {
  return partitions.map((partition) => {
    const obs = observation({ topic, partition, holder: `w${partition % 2}`, consumers: [consumer("w0"), consumer("w1")] });
    return stateFrom(obs, seenAt, { holderSince: at(0), ...overrides(partition) });
  });
}

/** What the board says of a Pulsar cluster, without the cluster's own name. */
async function leadersBoard(side: Side, nowMs: number) {
  const board = await listLeaders(db, { clusterNames: [side.name], thresholds: THRESHOLDS, query: ALL_LEADERS, nowMs });
  const rows = board.subscriptions.flatMap((s) => s.partitions).sort((a, b) => a.partition - b.partition);
  const clean = (text: string) => text.replaceAll(side.name, "<cluster>");
  return {
    cluster: { lastObservedAt: board.clusters[0]!.lastObservedAt, isSilent: board.clusters[0]!.isSilent },
    rows: rows.map((r) => ({
      partition: r.partition,
      holder: r.holder,
      staleSince: r.staleSince,
      health: r.health,
      flags: r.flags.map((f) => ({ ...f, detail: clean(f.detail) })),
    })),
  };
}

async function lastObservations(side: Side): Promise<Record<string, string | null>> {
  const rows = await readHeldRows(db, side.clusterId);
  return Object.fromEntries([...rows.entries()].map(([key, row]) => [key.replace(/^.*\|/, ""), row.lastObservedAt]).sort());
}

beforeAll(async () => {
  db = createTestDb(getTestDatabaseUrl());
  for (const [suffix, hasTracker] of [
    ["changed-only", true],
    ["every-row", false],
  ] as const) {
    const name = `writes-${suffix}-${run}`;
    sides.push({ name, clusterId: await createCluster(name, "PULSAR"), written: hasTracker ? new WrittenRows() : null });
  }
});

afterAll(async () => {
  await db?.cluster.deleteMany({ where: { name: { contains: run } } });
  await db?.$disconnect();
});

describe("a Pulsar cluster's cycles", () => {
  const topic = `persistent://acme/writes-${run}/events`;
  const [changedOnly, everyRow] = [() => sides[0]!, () => sides[1]!];

  it("write no held_resource row while nothing changes, and the board shows every resource observed by the latest cycle", async () => {
    for (const side of sides) await save(side, { shape: "subscription-partition", states: pulsarStates(topic, at(0)) }, 0);
    const before = await readHeldRows(db, changedOnly().clusterId);
    for (const cycle of [5, 10]) for (const side of sides) await save(side, { shape: "subscription-partition", states: pulsarStates(topic, at(cycle)) }, cycle);
    const after = await readHeldRows(db, changedOnly().clusterId);
    expect(writtenBetween(before, after)).toEqual([]);
    expect(await lastObservations(changedOnly())).toEqual(await lastObservations(everyRow()));
    expect(Object.values(await lastObservations(changedOnly()))).toEqual(partitions.map(() => at(10)));
    for (const nowMs of [BASE + 11_000, BASE + 24_000]) expect(await leadersBoard(changedOnly(), nowMs)).toEqual(await leadersBoard(everyRow(), nowMs));
    expect((await leadersBoard(changedOnly(), BASE + 11_000)).rows.every((r) => r.staleSince === null)).toBe(true);
  });

  it("write the row of a resource that errored while the rest of the cycle succeeded, and only that one; the board flags it as before", async () => {
    const before = await readHeldRows(db, changedOnly().clusterId);
    for (const side of sides) {
      const states = pulsarStates(topic, at(15)).map((s) =>
        s.partition === 2 ? markStale({ ...s, lastObservedAt: at(10) }, "HTTP 500 from the broker", at(15)) : s,
      );
      await save(side, { shape: "subscription-partition", states }, 15);
    }
    const after = await readHeldRows(db, changedOnly().clusterId);
    expect(writtenBetween(before, after)).toEqual([`${topic}|billing|2`]);
    const observed = await lastObservations(changedOnly());
    expect(observed).toEqual(await lastObservations(everyRow()));
    expect(observed["2"]).toBe(at(10));
    expect(observed["0"]).toBe(at(15));
    const board = await leadersBoard(changedOnly(), BASE + 16_000);
    expect(board).toEqual(await leadersBoard(everyRow(), BASE + 16_000));
    expect(board.rows.find((r) => r.partition === 2)).toMatchObject({ staleSince: at(15), health: "unknown" });
    expect(board.rows.filter((r) => r.staleSince === null).map((r) => r.partition)).toEqual([0, 1, 3, 4]);

    // The failure repeats on the next cycles: nothing more to write.
    const repeated = await readHeldRows(db, changedOnly().clusterId);
    for (const side of sides) {
      const states = pulsarStates(topic, at(20)).map((s) =>
        s.partition === 2 ? markStale({ ...s, lastObservedAt: at(10) }, "HTTP 500 from the broker", at(20)) : s,
      );
      await save(side, { shape: "subscription-partition", states: states.map((s) => (s.partition === 2 ? { ...s, staleSince: at(15) } : s)) }, 20);
    }
    expect(writtenBetween(repeated, await readHeldRows(db, changedOnly().clusterId))).toEqual([]);
    expect(await leadersBoard(changedOnly(), BASE + 21_000)).toEqual(await leadersBoard(everyRow(), BASE + 21_000));
  });

  it("leave every other row untouched on a partial save, neither stale nor observed by it", async () => {
    const before = await readHeldRows(db, changedOnly().clusterId);
    const change: DetectedChange = {
      resourceKey: `${topic}|billing|0`,
      kind: "HOLDER_CHANGED",
      cause: "CLIENT",
      fromHolder: "w0",
      toHolder: "w1",
      oldSeenAt: at(20),
      newSeenAt: at(22),
      isDuringGap: false,
      details: {},
    };
    for (const side of sides) {
      const repolled = pulsarStates(topic, at(22), () => ({ holder: "w1", holderSince: at(22), lastChangeAt: at(22) })).filter((s) => s.partition === 0);
      await save(side, { shape: "subscription-partition", states: repolled }, 22, { isFullSweep: false, changes: [change] });
    }
    const after = await readHeldRows(db, changedOnly().clusterId);
    expect(writtenBetween(before, after)).toEqual([`${topic}|billing|0`]);
    const observed = await lastObservations(changedOnly());
    expect(observed).toEqual(await lastObservations(everyRow()));
    expect(observed).toMatchObject({ "0": at(22), "1": at(20), "2": at(10) });
    expect(await leadersBoard(changedOnly(), BASE + 23_000)).toEqual(await leadersBoard(everyRow(), BASE + 23_000));
    expect(await db.holderChange.count({ where: { clusterId: changedOnly().clusterId } })).toBe(1);
  });

  it("show a stopped poller's resources as the old path did: stale after the limit, since their last observation", async () => {
    // No more cycles: the worker is down.
    for (const nowMs of [BASE + 30_000, BASE + 600_000]) {
      const board = await leadersBoard(changedOnly(), nowMs);
      expect(board).toEqual(await leadersBoard(everyRow(), nowMs));
    }
    const late = await leadersBoard(changedOnly(), BASE + 600_000);
    expect(late.cluster.isSilent).toBe(true);
    expect(late.rows.every((r) => r.flags.some((f) => f.rule === "stale"))).toBe(true);
    expect(late.rows.find((r) => r.partition === 1)!.staleSince).toBe(at(20));
  });

  it("let a restarted poller resume from the same states as the old path", async () => {
    const resumed = await loadCycleStates(db, changedOnly().clusterId, { shape: "subscription-partition" });
    const old = await loadCycleStates(db, everyRow().clusterId, { shape: "subscription-partition" });
    const pick = (states: CycleStates) =>
      (states.states as ResourceState[])
        .map((s) => ({ key: s.resourceKey, lastObservedAt: s.lastObservedAt, staleSince: s.staleSince, lastErrorAt: s.lastErrorAt, holder: s.holder }))
        .sort((a, b) => a.key.localeCompare(b.key));
    expect(pick(resumed)).toEqual(pick(old));
    // Its first cycle finds every resource as the rows say: nothing to write.
    const restarted: Side = { ...changedOnly(), written: WrittenRows.from(resumed, { shape: "subscription-partition" }) };
    const before = await readHeldRows(db, restarted.clusterId);
    const again = (resumed.states as ResourceState[]).map((s) => (s.staleSince === null ? { ...s, lastObservedAt: at(24) } : { ...s, lastErrorAt: at(24) }));
    await save(restarted, { shape: "subscription-partition", states: again }, 24);
    expect(writtenBetween(before, await readHeldRows(db, restarted.clusterId))).toEqual([]);
  });

  it("write a busy resource's moving figures about once a minute, not every cycle", async () => {
    const side = changedOnly();
    const busyKey = `${topic}|billing|3`;
    let writes = 0;
    let previous = await readHeldRows(db, side.clusterId);
    // Two minutes of 5-second cycles where only partition 3's backlog moves.
    for (let cycle = 25; cycle <= 145; cycle += 5) {
      const states = pulsarStates(topic, at(cycle), (p) => (p === 3 ? { backlog: cycle * 10, msgRateOut: cycle } : {})).map((s) =>
        s.partition === 2 ? markStale({ ...s, lastObservedAt: at(10) }, "HTTP 500 from the broker", at(15)) : s,
      );
      states.find((s) => s.partition === 0)!.holder = "w1";
      for (const s of states) if (s.partition === 0) Object.assign(s, { holderSince: at(22), lastChangeAt: at(22) });
      await save(side, { shape: "subscription-partition", states }, cycle);
      const current = await readHeldRows(db, side.clusterId);
      const written = writtenBetween(previous, current);
      expect(written.every((key) => key === busyKey)).toBe(true);
      writes += written.length;
      previous = current;
    }
    expect(writes).toBeGreaterThanOrEqual(2);
    expect(writes).toBeLessThanOrEqual(3);
    const row = await db.heldResource.findUniqueOrThrow({
      where: { clusterId_resourceKey: { clusterId: side.clusterId, resourceKey: busyKey } },
      select: { backlog: true },
    });
    // The board's backlog is at most one flush interval (plus a cycle) old.
    expect(Number(row.backlog)).toBeGreaterThanOrEqual((145 - 65) * 10);
  });
});

describe("a lock cluster's cycles", () => {
  const lockSides: Side[] = [];
  const keys = ["lock:a", "lock:b", "lock:c"];
  // A lock's expiry and TTL move on every read: moving figures, flushed once a flush interval at
  // each key's own phase (the cadence is tested above). The scenario's few seconds are placed where
  // no key's flush falls, so that the one row written is the one that changed, whatever the day.
  let lockBase = BASE;
  while (keys.some((key) => isMovingFiguresFlushDue(key, lockBase, lockBase + 5_000))) lockBase += 1_000;
  const at = (s: number) => new Date(lockBase + s * 1000).toISOString();
  function locks(seenAt: number, overrides: (key: string) => Partial<HoldState> = () => ({})): HoldState[] {
    return keys.map((key) => ({
      resourceKey: key,
      pattern: "lock:*",
      holder: "pod-a",
      holderToken: `pod-a:${key}`,
      expiresAt: at(30),
      ttlMs: (30 - seenAt) * 1000,
      waiters: [],
      isSplit: false,
      details: { layout: "token" },
      holderSince: at(0),
      lastObservedAt: at(seenAt),
      staleSince: null,
      lastError: null,
      lastErrorAt: null,
      goneAt: null,
      lastChangeAt: null,
      stats: { tenureMaxTtlMs: 30_000, nearExpiryCount: 0, longestHoldMs: 0 },
      ...overrides(key),
    }));
  }
  async function locksBoard(side: Side, nowMs: number) {
    const board = await listLocks(db, { clusterNames: [side.name], thresholds: THRESHOLDS, query: ALL_LOCKS, nowMs });
    return board.locks.map((l) => ({
      key: l.key,
      lastObservedAt: l.lastObservedAt,
      staleSince: l.staleSince,
      ttlMs: l.ttlMs,
      flags: l.flags.map((f) => ({ ...f, detail: f.detail.replaceAll(side.name, "<cluster>") })),
    }));
  }

  beforeAll(async () => {
    for (const [suffix, hasTracker] of [
      ["locks-changed-only", true],
      ["locks-every-row", false],
    ] as const) {
      const name = `writes-${suffix}-${run}`;
      lockSides.push({ name, clusterId: await createCluster(name, "REDIS"), written: hasTracker ? new WrittenRows() : null });
    }
  });

  it("write only the lock that changed and show the same times, flags and TTL left as the old path", async () => {
    const hold = (states: HoldState[]): CycleStates => ({ shape: "hold", resourceKind: "REDIS_LOCK", states });
    for (const side of lockSides) await save(side, hold(locks(0)), 0);
    const before = await readHeldRows(db, lockSides[0]!.clusterId);
    for (const cycle of [1, 2, 3]) {
      // The expiry read again a few milliseconds apart; lock:c errors from cycle 3.
      for (const side of lockSides) {
        const states = locks(cycle, () => ({ expiresAt: new Date(Date.parse(at(30)) + cycle).toISOString() }));
        await save(
          side,
          hold(states.map((s) => (s.resourceKey === "lock:c" && cycle === 3 ? markStale({ ...s, lastObservedAt: at(2) }, "connection refused", at(3)) : s))),
          cycle,
        );
      }
    }
    expect(writtenBetween(before, await readHeldRows(db, lockSides[0]!.clusterId))).toEqual(["lock:c"]);
    for (const nowMs of [lockBase + 3_500, lockBase + 600_000]) {
      const board = await locksBoard(lockSides[0]!, nowMs);
      const old = await locksBoard(lockSides[1]!, nowMs);
      // TTL left is worked out from the expiry: the old path stored it, rounded to the read's millisecond.
      expect(board.map((l) => ({ ...l, ttlMs: Math.round(l.ttlMs! / 10) }))).toEqual(old.map((l) => ({ ...l, ttlMs: Math.round(l.ttlMs! / 10) })));
    }
    const fresh = await locksBoard(lockSides[0]!, lockBase + 3_500);
    expect(fresh.find((l) => l.key === "lock:a")).toMatchObject({ lastObservedAt: at(3), staleSince: null });
    expect(fresh.find((l) => l.key === "lock:c")).toMatchObject({ lastObservedAt: at(2), staleSince: at(3) });
  });
});
