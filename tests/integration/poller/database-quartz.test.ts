import { randomUUID } from "node:crypto";

import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type ClusterConfig, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { lockTableEntry, type QuartzTableEntry } from "@/lib/sources/database/lock-table-config";
import { rememberRow, toTableObservation } from "@/lib/sources/database/lock-table-observation";
import { type QuartzRawRow, toQuartzRows } from "@/lib/sources/database/lock-table-rows";
import { getViolationCauses } from "@/lib/violations/queries/get-violation-causes";
import { type QuartzContender, startQuartzContender } from "@/tools/quartz-contender/quartz-contender";
import { createTestDb, registerCluster, type RunningPoller, startPoller, waitFor } from "@/tests/support/poller-harness";
import { createScratchDatabase, getTestDatabaseUrl } from "@/tests/support/test-database";

// The worker's poller on Quartz's clustered JobStore in the suite's own PostgreSQL, written by two
// real Quartz 2.5.2 nodes (tools/quartz-contender, Quartz's own tables_postgres.sql; no row is
// written by the test). A job's lock is held while a QRTZ_FIRED_TRIGGERS row for it is EXECUTING:
// the execution done (row deleted, its node checking in) is RELEASED; the node SIGKILLed
// mid-job (it stops checking in: EXPIRED once its check-in interval + 7.5 s passed), the other
// node then recovers the job and runs it; a job without @DisallowConcurrentExecution running on
// both nodes at once has two holders, and is recorded once as a "two-hands" violation. The jobs
// run until the test finishes them: no timing.

const databaseUrl = getTestDatabaseUrl();
const run = randomUUID().slice(0, 8);
const schedulerName = `BatonSched_${run}`;
const tablePrefix = "quartz.qrtz_";
let db: Db;
let scratch: { url: string; drop(): Promise<void> };
let scratchName: string;
let nodeA: QuartzContender;
let nodeB: QuartzContender;
const contenders: QuartzContender[] = [];
const pollers: RunningPoller[] = [];
const logs: string[] = [];
let cluster: ClusterConfig;
let clusterId: number;

type ChangeRow = { kind: string; ending: string | null; fromHolder: string | null; toHolder: string | null };

async function changesOf(key: string): Promise<ChangeRow[]> {
  return db.holderChange.findMany({
    where: { clusterId, resource: { resourceKey: key }, kind: { not: "HOLDER_APPEARED" } },
    orderBy: [{ newSeenAt: "asc" }, { id: "asc" }],
    select: { kind: true, ending: true, fromHolder: true, toHolder: true },
  });
}

async function lockRow(key: string) {
  return db.heldResource.findUnique({
    where: { clusterId_resourceKey: { clusterId, resourceKey: key } },
    select: { holder: true, holderToken: true, expiresAt: true, details: true, staleSince: true },
  });
}

/** The cluster's violations with their causes, read as GET /api/v1/violations/causes reads them. */
async function violationsOfCluster() {
  return getViolationCauses(
    db,
    { fromMs: Date.now() - 60 * 60_000, toMs: Date.now() + 60_000, service: cluster.name, subscription: null, cause: null, limit: 100 },
    { windowMs: 60_000, graceMs: 0, producerRouting: {} },
  );
}

/** How many cycles the cluster's pollers have saved so far. */
const cycleCount = () => db.pollRun.count({ where: { clusterId } });

/** Waits until the pollers saved `cycles` more full cycles than now: every lock read again that often. */
async function waitForCycles(cycles: number, what: string): Promise<void> {
  const start = await cycleCount();
  await waitFor(cycleCount, (count) => count >= start + cycles, what);
}

const jobKey = (group: string, name: string) => `${scratchName}/${tablePrefix}fired_triggers/${schedulerName}/${group}.${name}`;
const sourceOf = (row: { details: unknown } | null) => (row?.details as { source: Record<string, unknown> } | undefined)?.source ?? {};

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  scratch = await createScratchDatabase(databaseUrl, "quartz");
  scratchName = new URL(scratch.url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: scratch.url });
  await admin.connect();
  try {
    await admin.query("CREATE SCHEMA quartz");
  } finally {
    await admin.end();
  }
  const node = (instanceName: string) => startQuartzContender(scratch.url, { schema: "quartz", schedulerName, instanceName, checkinIntervalMs: 1_000 });
  nodeA = await node(`node-a-${run}`);
  contenders.push(nodeA);
  await nodeA.createSchema();
  nodeB = await node(`node-b-${run}`);
  contenders.push(nodeB);
  // Node A alone fires at first; each test starts and stands by the nodes it needs.
  await nodeA.start();
  cluster = loadConfig({
    BATON_CLUSTERS: JSON.stringify([
      {
        kind: "database",
        name: `pg-quartz-${run}`,
        url: scratch.url,
        databases: [scratchName],
        tables: [{ format: "quartz", tablePrefix, schedulerName }],
        pollIntervalMs: 300,
        discoveryIntervalMs: 1_000,
        statementTimeoutMs: 1_000,
        connectTimeoutMs: 1_000,
      },
    ]),
  }).clusters[0]!;
  clusterId = await registerCluster(db, cluster);
  pollers.push(startPoller({ databaseUrl, cluster, clusterId, pollerId: `pg-quartz-${run}`, logs }));
}, 180_000);

afterAll(async () => {
  for (const poller of pollers) await poller.stop();
  for (const contender of contenders) await contender.kill().catch(() => undefined);
  if (cluster) {
    await db?.exclusivityEvent.deleteMany({ where: { service: cluster.name } });
    await db?.violationMinute.deleteMany({ where: { service: cluster.name } });
    await db?.violationHour.deleteMany({ where: { service: cluster.name } });
    await db?.cluster.deleteMany({ where: { name: cluster.name } });
  }
  await scratch?.drop();
  await db?.$disconnect();
});

describe("the poller on Quartz's clustered JobStore", () => {
  it("a job running on one node: held by its instance (token the ENTRY_ID), then RELEASED when the execution completes", async () => {
    const [group, name] = ["reports", `daily-${run}`];
    await nodeA.schedule(group, name, { isExclusive: true, requestsRecovery: false });
    const entryId = await nodeA.nextBegin(group, name);
    const held = await waitFor(
      () => lockRow(jobKey(group, name)),
      (row) => row?.holder != null,
      "the execution to be seen held",
    );
    expect(held!.holder).toBe(nodeA.instanceName);
    expect(held!.holderToken).toBe(`quartz:${entryId}`);
    const source = sourceOf(held);
    expect(source).toMatchObject({
      format: "quartz",
      schedulerName,
      jobGroup: group,
      jobName: name,
      instanceName: nodeA.instanceName,
      entryId,
      isNonConcurrent: true,
      ttl: "check-in interval + 7.5 s",
    });
    expect(source).not.toHaveProperty("sharedHolders");
    expect(source.schedulerInstances).toEqual(
      expect.arrayContaining([expect.objectContaining({ instanceName: nodeA.instanceName, checkinIntervalMs: 1_000, isCheckingIn: true })]),
    );
    // The expiry is the instance's last check-in + interval + 7.5 s: ahead while it checks in.
    expect(held!.expiresAt).not.toBeNull();

    await nodeA.finish(group, name);
    await nodeA.ended(group, name, entryId);
    const changes = await waitFor(
      () => changesOf(jobKey(group, name)),
      (rows) => rows.length > 0,
      "the completion to be recorded",
    );
    expect(changes).toEqual([{ kind: "HOLDER_LOST", ending: "RELEASED", fromHolder: nodeA.instanceName, toHolder: null }]);
  });

  it("a job without @DisallowConcurrentExecution running on both nodes at once: two holders, both listed, one two-hands violation", async () => {
    const [group, name] = ["sweeps", `sweep-${run}`];
    await nodeA.schedule(group, name, { isExclusive: false, requestsRecovery: false });
    const entryA = await nodeA.nextBegin(group, name);
    // Node A stops firing (its execution goes on, it keeps checking in); node B fires the job again.
    await nodeA.standby();
    await nodeB.fire(group, name);
    await nodeB.start();
    const entryB = await nodeB.nextBegin(group, name);
    const both = await waitFor(
      () => lockRow(jobKey(group, name)),
      (row) => Array.isArray(sourceOf(row).sharedHolders),
      "both executions to be seen",
    );
    // The holder is the older execution; the other is a second holder.
    expect(both!.holder).toBe(nodeA.instanceName);
    expect(both!.holderToken).toBe(`quartz:${entryA}`);
    const source = sourceOf(both);
    expect(source.sharedHolders).toEqual([expect.objectContaining({ instanceName: nodeB.instanceName, entryId: entryB, isNonConcurrent: false })]);
    expect(source.executions).toEqual([
      expect.objectContaining({ instanceName: nodeA.instanceName, entryId: entryA }),
      expect.objectContaining({ instanceName: nodeB.instanceName, entryId: entryB }),
    ]);
    expect((source.schedulerInstances as { instanceName: string }[]).map((instance) => instance.instanceName).sort()).toEqual(
      [nodeA.instanceName, nodeB.instanceName].sort(),
    );

    // The double run is an exclusivity violation with a cause of its own: node B entered while node
    // A's execution ran, seen in Quartz's own rows (no counter in the jobs).
    const recorded = await waitFor(violationsOfCluster, (answer) => answer.violations.length > 0, "the double run to be recorded as a violation");
    expect(recorded.violations).toEqual([
      expect.objectContaining({
        key: jobKey(group, name),
        service: cluster.name,
        worker: nodeB.instanceName,
        lock: `${cluster.name}/${jobKey(group, name)}`,
        cause: "two-hands",
      }),
    ]);
    expect(recorded.counts["two-hands"]).toBe(1);
    const [event] = await db.exclusivityEvent.findMany({
      where: { service: cluster.name, counter: { gt: 0 } },
      select: { source: true, counter: true, attributes: true, othersInside: true, observedAt: true },
    });
    expect(event).toMatchObject({ source: "POLLER", counter: 1, attributes: { twoHands: "quartz" } });
    expect(event!.othersInside).toEqual([{ worker: nodeA.instanceName, enteredAt: Date.parse(String(source.firedAt)) }]);
    expect(event!.observedAt.toISOString()).toBe((source.sharedHolders as { firedAt: string }[])[0]!.firedAt);
    // Node A's entry beside it, as a counter would have sent it: the drill-down counts both hands.
    const entries = await db.exclusivityEvent.findMany({ where: { service: cluster.name, counter: 0 }, select: { worker: true, observedAt: true } });
    expect(entries.map((entry) => ({ worker: entry.worker, observedAt: entry.observedAt.toISOString() }))).toEqual([
      { worker: nodeA.instanceName, observedAt: new Date(Date.parse(String(source.firedAt))).toISOString() },
    ]);

    // Read again and again while both still run, then by a restarted poller: no second event.
    await waitForCycles(3, "three more cycles reading both executions");
    const restarted = pollers.shift()!;
    await restarted.stop();
    pollers.push(startPoller({ databaseUrl, cluster, clusterId, pollerId: `pg-quartz-${run}-again`, logs }));
    await waitFor(
      () => db.pollRun.count({ where: { clusterId, pollerId: `pg-quartz-${run}-again` } }),
      (count) => count >= 3,
      "the restarted poller to read both executions three times",
    );
    expect(await db.exclusivityEvent.count({ where: { service: cluster.name } })).toBe(2);
    const again = await violationsOfCluster();
    expect(again.violations.map((v) => [v.eventId, v.cause])).toEqual([[recorded.violations[0]!.eventId, "two-hands"]]);
    const minutes = await db.violationMinute.aggregate({ where: { service: cluster.name }, _sum: { violations: true, events: true } });
    expect(minutes._sum).toEqual({ violations: 1, events: 2 });

    // A's execution completes: B's is now the holder, A's hold RELEASED (its node still checks in).
    await nodeA.finish(group, name);
    const handed = await waitFor(
      () => changesOf(jobKey(group, name)),
      (rows) => rows.length > 0,
      "the first execution's end to be recorded",
    );
    expect(handed[0]).toMatchObject({ ending: "RELEASED", fromHolder: nodeA.instanceName });
    const rest = await waitFor(
      () => lockRow(jobKey(group, name)),
      (row) => row?.holderToken === `quartz:${entryB}`,
      "node B's execution to be the holder",
    );
    expect(sourceOf(rest)).not.toHaveProperty("sharedHolders");
    await nodeB.finish(group, name);
    await waitFor(
      () => lockRow(jobKey(group, name)),
      (row) => row !== null && row.holder === null,
      "the job to be free",
    );
  });

  it("the node SIGKILLed mid-job: EXPIRED once it stopped checking in, then the other node recovers the job and runs it", async () => {
    const [group, name] = ["billing", `nightly-${run}`];
    // Node A alone fires the job (node B stands by, checking in).
    await nodeB.standby();
    await nodeA.start();
    await nodeA.schedule(group, name, { isExclusive: true, requestsRecovery: true });
    const entryA = await nodeA.nextBegin(group, name);
    const held = await waitFor(
      () => lockRow(jobKey(group, name)),
      (row) => row?.holderToken === `quartz:${entryA}`,
      "node A's execution to be seen held",
    );
    expect(held!.holder).toBe(nodeA.instanceName);
    await nodeB.start();

    await nodeA.kill();
    const changes = await waitFor(
      () => changesOf(jobKey(group, name)),
      (rows) => rows.length > 0,
      "node A's hold to end",
    );
    // Seen free in between (its check-in ran out before B recovered), or handed straight to B.
    expect(changes[0]).toMatchObject({ ending: "EXPIRED", fromHolder: nodeA.instanceName });
    expect([null, nodeB.instanceName]).toContain(changes[0]!.toHolder);

    // Quartz's recovery on node B deletes A's rows and re-runs the job (requestsRecovery).
    const entryB = await nodeB.nextBegin(group, name);
    const recovered = await waitFor(
      () => lockRow(jobKey(group, name)),
      (row) => row?.holderToken === `quartz:${entryB}`,
      "node B's recovery run to be seen held",
    );
    expect(recovered!.holder).toBe(nodeB.instanceName);
    const instances = sourceOf(recovered).schedulerInstances as { instanceName: string }[];
    expect(instances.map((instance) => instance.instanceName)).not.toContain(nodeA.instanceName);
    await nodeB.finish(group, name);
    await nodeB.ended(group, name, entryB);
  });
});

describe("the quartz tables setting", () => {
  const entry = (tables: unknown[]) => ({ kind: "database", name: "bad-quartz", url: "postgres://u:p@127.0.0.1:5432/jobs", tables });
  const load = (tables: unknown[]) => () => loadConfig({ BATON_CLUSTERS: JSON.stringify([entry(tables)]) });

  it.each([
    [[{ format: "quartz", tablePrefix: "a.b.qrtz_" }], /tables\[0\]\.tablePrefix must be a table prefix/],
    [[{ format: "quartz", tablePrefix: "qrtz-" }], /tables\[0\]\.tablePrefix must be a table prefix/],
    [[{ format: "quartz", schedulerName: "" }], /tables\[0\]\.schedulerName must not be empty/],
    [[{ format: "quartz", schedulerName: "x".repeat(121) }], /tables\[0\]\.schedulerName must be at most 120 characters/],
    [[{ format: "quartz", schedulerName: 7 }], /tables\[0\]\.schedulerName/],
    [[{ format: "quartz", table: "qrtz_fired_triggers" }], /tables\[0\].*unknown key "table"/],
    [[{ format: "quartz" }, { format: "quartz", tablePrefix: "QRTZ_" }], /tables\[1\]\.tablePrefix names the same table as tables\[0\]/],
  ])("%j is refused naming the field", (tables, message) => {
    expect(load(tables)).toThrow(message);
  });

  it("defaults: the prefix qrtz_, every scheduler", () => {
    const parsed = loadConfig({ BATON_CLUSTERS: JSON.stringify([entry([{ format: "quartz" }])]) }).clusters[0] as unknown as { tables: unknown[] };
    expect(parsed.tables).toEqual([{ format: "quartz", tablePrefix: "qrtz_", table: "qrtz_fired_triggers", timeZone: "UTC" }]);
  });
});

describe("Quartz's rows, without a server", () => {
  const entry = lockTableEntry.parse({ format: "quartz", tablePrefix: "qrtz_" }) as QuartzTableEntry;
  const nowMs = Date.parse("2026-12-07T06:00:00.000Z");
  const instances = [
    { schedName: "S", instanceName: "node-1", lastCheckinMs: nowMs - 500, checkinIntervalMs: 2_000 },
    { schedName: "S", instanceName: "node-2", lastCheckinMs: nowMs - 20_000, checkinIntervalMs: 2_000 },
  ];
  const execution = (instance: string, entryId: string, firedMs: number): QuartzRawRow => ({
    db_now: new Date(nowMs),
    database: "jobs",
    instances,
    sched_name: "S",
    entry_id: entryId,
    instance_name: instance,
    job_group: "ops",
    job_name: "sweep",
    fired_time: firedMs,
    sched_time: firedMs,
    is_nonconcurrent: false,
    requests_recovery: false,
  });
  const ref = { key: "jobs/qrtz_fired_triggers/S/ops.sweep", pattern: "*/qrtz_fired_triggers/*" };

  it("one lock per job; the holder is the oldest execution whose instance checks in, the others shared holders", () => {
    // node-2 fired first but stopped checking in 20 s ago (interval 2 s + 7.5 s passed).
    const rows = toQuartzRows(entry, [execution("node-2", "node-21", nowMs - 9_000), execution("node-1", "node-11", nowMs - 3_000)]);
    expect(rows.rows).toHaveLength(1);
    const [row] = rows.rows;
    expect(row).toMatchObject({ resourceKey: ref.key, holder: "node-1", token: "quartz:node-11", expiresMs: nowMs - 500 + 2_000 + 7_500 });
    expect(row!.details.sharedHolders).toEqual([expect.objectContaining({ instanceName: "node-2", entryId: "node-21" })]);
    expect([...rows.checkingIn!]).toEqual(["S/node-1"]);
  });

  it("the other executions of a held job, whose instances check in, are holds running at once; one of a silent instance is not", () => {
    const live = [...instances.slice(0, 1), { schedName: "S", instanceName: "node-3", lastCheckinMs: nowMs - 200, checkinIntervalMs: 2_000 }];
    const twice = toQuartzRows(entry, [
      { ...execution("node-1", "node-11", nowMs - 3_000), instances: live },
      { ...execution("node-3", "node-31", nowMs - 1_000), instances: live },
    ]);
    const context = { dbNowMs: nowMs, observedMs: nowMs, previous: undefined, lastDetails: undefined, checkingIn: twice.checkingIn };
    expect(toTableObservation(ref, twice.rows[0], context).concurrentHolds).toEqual({
      seenBy: "quartz",
      holder: { holder: "node-1", token: "quartz:node-11", since: new Date(nowMs - 3_000).toISOString() },
      others: [{ holder: "node-3", token: "quartz:node-31", since: new Date(nowMs - 1_000).toISOString() }],
    });
    // node-2 stopped checking in: its execution waits for recovery, it does not run.
    const stale = toQuartzRows(entry, [execution("node-2", "node-21", nowMs - 9_000), execution("node-1", "node-11", nowMs - 3_000)]);
    expect(toTableObservation(ref, stale.rows[0], { ...context, checkingIn: stale.checkingIn })).not.toHaveProperty("concurrentHolds");
  });

  it("no EXECUTING row: no lock, the clock still read", () => {
    const empty = { ...execution("node-1", "x", 0), sched_name: null, entry_id: null, instance_name: null, job_group: null, job_name: null, fired_time: null };
    expect(toQuartzRows(entry, [empty])).toMatchObject({ rows: [], dbNowMs: nowMs });
  });

  it("endings: the row gone with its instance checking in is RELEASED; gone with it silent, or the row left past the window, EXPIRED", () => {
    const held = toQuartzRows(entry, [execution("node-1", "node-11", nowMs - 3_000)]);
    const memory = rememberRow(undefined, held.rows[0]!, nowMs);
    const next = (checkingIn: string[], row = undefined as (typeof held.rows)[number] | undefined, atMs = nowMs + 300) =>
      toTableObservation(ref, row, { dbNowMs: atMs, observedMs: atMs, previous: memory, lastDetails: held.rows[0]!.details, checkingIn: new Set(checkingIn) })
        .previousEnding;
    expect(next(["S/node-1"])).toBe("RELEASED");
    expect(next([])).toBe("EXPIRED");
    const late = nowMs + 60_000;
    expect(next([], held.rows[0], late)).toBe("EXPIRED");
    expect(next(["S/node-1"], held.rows[0])).toBeUndefined();
  });
});
