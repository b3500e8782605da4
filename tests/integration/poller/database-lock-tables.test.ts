import { randomUUID } from "node:crypto";

import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type ClusterConfig, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import type { HoldObservation } from "@/lib/poller/contract/hold-observation";
import { detectHoldChanges } from "@/lib/poller/detect-hold-changes";
import { createDatabaseHoldSource } from "@/lib/sources/database";
import { databaseKind } from "@/lib/sources/database/database-kind";
import { springLockKeyOf } from "@/lib/sources/database/lock-table-rows";
import { getViolationCauses } from "@/lib/violations/queries/get-violation-causes";
import { type DbLockContender, type DbLockLibrary, startDbLockContender, startSpring6Contender } from "@/tools/db-lock-contender/db-lock-contender";
import { createTestDb, registerCluster, type RunningPoller, startPoller, waitFor } from "@/tests/support/poller-harness";
import { createScratchDatabase, getTestDatabaseUrl } from "@/tests/support/test-database";

// The worker's poller on lock tables in the suite's own PostgreSQL, written by the real libraries
// on the JVM (tools/db-lock-contender: ShedLock 6.9.2's JdbcLockProvider, Spring Integration
// 7.1.2's JdbcLockRegistry; no row is written by the test): each ending as the rows tell it.
// ShedLock: a release moves lock_until back (RELEASED), a lockAtMostFor that runs out writes
// nothing (EXPIRED), another node then takes the row over. INT_LOCK: a release deletes the row
// (RELEASED), a TTL that runs out leaves it (EXPIRED; here its holder is SIGKILLed), another
// client then takes it. Then a hand-over with no read in between (HOLDER_CHANGED, EXPIRED), a
// JVM writing in another zone, a table that is missing or goes away (stale, the setting named,
// the advisory locks read as usual), and the settings' errors.

const databaseUrl = getTestDatabaseUrl();
const run = randomUUID().slice(0, 8);
let db: Db;
let scratch: { url: string; drop(): Promise<void> };
let scratchName: string;
let admin: pg.Client;
let nodeA: DbLockContender;
let nodeB: DbLockContender;
let nodeNewYork: DbLockContender;
let sixLong: DbLockContender;
const contenders: DbLockContender[] = [];
const pollers: RunningPoller[] = [];
const logs: string[] = [];
let cluster: ClusterConfig;
let clusterId: number;

/** ShedLock's table, as its README gives it for PostgreSQL. */
const shedlockTableSql = (table: string) =>
  `CREATE TABLE ${table}(name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL, locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))`;

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

const shedlockKey = (name: string, table = "public.shedlock") => `${scratchName}/${table}/${name}`;
const springKey = (name: string) => `${scratchName}/public.int_lock/DEFAULT/${name}`;

function tablesSetting() {
  return [
    { format: "shedlock", table: "public.shedlock" },
    { format: "spring-integration", table: "public.int_lock", names: [`daily-report-${run}`, `nightly-sync-${run}`] },
    { format: "shedlock", table: "public.ny_shedlock", timeZone: "America/New_York" },
    { format: "shedlock", table: "public.no_such_locks" },
    { format: "shedlock", table: "public.doomed_shedlock" },
    // Spring Integration 6.x: no EXPIRED_AFTER, the registry's TTL configured.
    { format: "spring-integration", table: "spring6_long.int_lock", names: [`six-release-${run}`], ttlMs: 60_000 },
    { format: "spring-integration", table: "spring6_short.int_lock", names: [`six-expiry-${run}`], ttlMs: 4_000 },
  ];
}

function clusterEntry(name: string) {
  return {
    kind: "database",
    name,
    url: scratch.url,
    databases: [scratchName],
    tables: tablesSetting(),
    pollIntervalMs: 300,
    discoveryIntervalMs: 1_000,
    statementTimeoutMs: 1_000,
    connectTimeoutMs: 1_000,
  };
}

/** The cluster's violations with their causes, read as GET /api/v1/violations/causes reads them. */
async function violationsOfCluster() {
  const answer = await getViolationCauses(
    db,
    { fromMs: Date.now() - 60 * 60_000, toMs: Date.now() + 60_000, service: cluster.name, subscription: null, cause: null, limit: 100 },
    { windowMs: 60_000, graceMs: 0, producerRouting: {} },
  );
  return answer.violations;
}

/** Retries the library's own acquire until it succeeds (a lock table has no queue: its contenders try again). */
async function acquireWhenFree(node: DbLockContender, library: DbLockLibrary, name: string, ttlMs: number): Promise<void> {
  await waitFor(
    () => node.acquire(library, name, ttlMs),
    (acquired) => acquired,
    `${library} ${name} to be taken once its hold expired`,
  );
}

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  scratch = await createScratchDatabase(databaseUrl, "locktables");
  scratchName = new URL(scratch.url).pathname.slice(1);
  admin = new pg.Client({ connectionString: scratch.url });
  await admin.connect();
  for (const table of ["shedlock", "ny_shedlock", "doomed_shedlock"]) await admin.query(shedlockTableSql(table));
  nodeA = await startDbLockContender(scratch.url);
  contenders.push(nodeA);
  // INT_LOCK and the rest of Spring Integration's JDBC schema, from the library's own script.
  await nodeA.createSpringSchema();
  nodeB = await startDbLockContender(scratch.url);
  contenders.push(nodeB);
  nodeNewYork = await startDbLockContender(scratch.url, { shedlockTable: "ny_shedlock", timeZone: "America/New_York" });
  contenders.push(nodeNewYork);
  // Spring Integration 6.5.6's own schema in two schemas of their own (its tables' names are 7.x's).
  for (const schema of ["spring6_long", "spring6_short"]) await admin.query(`CREATE SCHEMA ${schema}`);
  sixLong = await startSpring6Contender(scratch.url, { schema: "spring6_long", ttlMs: 60_000 });
  contenders.push(sixLong);
  await sixLong.createSpringSchema();
  cluster = loadConfig({ BATON_CLUSTERS: JSON.stringify([clusterEntry(`pg-tables-${run}`)]) }).clusters[0]!;
  clusterId = await registerCluster(db, cluster);
  pollers.push(startPoller({ databaseUrl, cluster, clusterId, pollerId: `pg-tables-${run}`, logs }));
}, 180_000);

afterAll(async () => {
  for (const poller of pollers) await poller.stop();
  for (const contender of contenders) await contender.kill().catch(() => undefined);
  await admin?.end().catch(() => undefined);
  if (cluster) {
    await db?.exclusivityEvent.deleteMany({ where: { service: cluster.name } });
    await db?.violationMinute.deleteMany({ where: { service: cluster.name } });
    await db?.violationHour.deleteMany({ where: { service: cluster.name } });
    await db?.cluster.deleteMany({ where: { name: cluster.name } });
  }
  await scratch?.drop();
  await db?.$disconnect();
});

describe("the poller on ShedLock's table", () => {
  it("a job's lock held, then released by its node (lock_until moved back): RELEASED; its expiry is lock_until, its holder locked_by", async () => {
    const name = `report-release-${run}`;
    const before = Date.now();
    expect(await nodeA.acquire("shedlock", name, 60_000)).toBe(true);
    const held = await waitFor(
      () => lockRow(shedlockKey(name)),
      (row) => row?.holder != null,
      "the ShedLock row to be seen held",
    );
    const source = (held!.details as { source: Record<string, unknown> }).source;
    expect(source).toMatchObject({ format: "shedlock", name, table: "public.shedlock", database: scratchName, lockedBy: held!.holder });
    expect(held!.expiresAt?.toISOString()).toBe(source.lockUntil);
    // lockAtMostFor 60 s from the acquire: lock_until read as UTC, as the node wrote it.
    expect(Math.abs(held!.expiresAt!.getTime() - (before + 60_000))).toBeLessThan(30_000);
    expect(held!.holderToken).toBe(`shedlock:${held!.holder}@${source.lockedAt as string}`);

    await nodeA.release("shedlock", name);
    const changes = await waitFor(
      () => changesOf(shedlockKey(name)),
      (rows) => rows.length > 0,
      "the release to be recorded",
    );
    expect(changes).toEqual([{ kind: "HOLDER_LOST", ending: "RELEASED", fromHolder: held!.holder, toHolder: null }]);
  });

  it("a lockAtMostFor that runs out with the job still holding: EXPIRED; another node then takes the row over", async () => {
    const name = `report-expiry-${run}`;
    expect(await nodeA.acquire("shedlock", name, 4_000)).toBe(true);
    const held = await waitFor(
      () => lockRow(shedlockKey(name)),
      (row) => row?.holder != null,
      "the ShedLock row to be seen held",
    );
    const changes = await waitFor(
      () => changesOf(shedlockKey(name)),
      (rows) => rows.length > 0,
      "the expiry to be recorded",
    );
    expect(changes).toEqual([{ kind: "HOLDER_LOST", ending: "EXPIRED", fromHolder: held!.holder, toHolder: null }]);

    // Node B's provider: its INSERT fails on the existing row, its UPDATE takes the expired one.
    expect(await nodeB.acquire("shedlock", name, 60_000)).toBe(true);
    const taken = await waitFor(
      () => lockRow(shedlockKey(name)),
      (row) => row?.holder != null,
      "node B's hold to be seen",
    );
    expect(taken!.holderToken).not.toBe(held!.holderToken);
    expect(await changesOf(shedlockKey(name))).toHaveLength(1);
    await nodeB.release("shedlock", name);
  });

  it("a job that outruns its lockAtMostFor: node B takes the row, node A's late release lands on it, then B's: one two-hands violation, B beside A", async () => {
    const name = `report-overrun-${run}`;
    const key = shedlockKey(name);
    expect(await nodeA.acquire("shedlock", name, 3_000)).toBe(true);
    const heldByA = await waitFor(
      () => lockRow(key),
      (row) => row?.holder != null,
      "node A's hold to be seen",
    );
    await waitFor(
      () => changesOf(key),
      (rows) => rows.some((row) => row.ending === "EXPIRED"),
      "node A's lockAtMostFor to run out, its job still running",
    );
    expect(await nodeB.acquire("shedlock", name, 60_000)).toBe(true);
    const heldByB = await waitFor(
      () => lockRow(key),
      (row) => row?.holder != null,
      "node B's hold to be seen",
    );
    expect(heldByB!.holderToken).not.toBe(heldByA!.holderToken);
    // Node A's job ends: its unlock (by name) moves lock_until of B's row back. Baton sees B's hold
    // released: the table cannot say whose release it was.
    await nodeA.release("shedlock", name);
    await waitFor(
      () => changesOf(key),
      (rows) => rows.filter((row) => row.ending === "RELEASED").length === 1,
      "the late release to be seen on node B's hold",
    );
    expect(await violationsOfCluster()).toEqual([]);
    // Node B's job ends: one acquisition released twice. Node A ran beside B.
    await nodeB.release("shedlock", name);
    const [violation, ...more] = await waitFor(violationsOfCluster, (violations) => violations.length > 0, "the double run to be recorded as a violation");
    expect(more).toEqual([]);
    expect(violation).toMatchObject({ key, service: cluster.name, worker: heldByB!.holder, lock: `${cluster.name}/${key}`, cause: "two-hands" });
    const [event] = await db.exclusivityEvent.findMany({
      where: { service: cluster.name, key, counter: { gt: 0 } },
      select: { source: true, attributes: true, othersInside: true, observedAt: true },
    });
    const lockedAt = (row: typeof heldByA) => String((row!.details as { source: { lockedAt: string } }).source.lockedAt);
    expect(event).toMatchObject({ source: "POLLER", attributes: { twoHands: "shedlock" } });
    expect(event!.observedAt.toISOString()).toBe(lockedAt(heldByB));
    expect(event!.othersInside).toEqual([{ worker: heldByA!.holder, enteredAt: Date.parse(lockedAt(heldByA)) }]);
    // Node A's entry beside it, as a counter would have sent it: the drill-down counts both hands.
    const entries = await db.exclusivityEvent.findMany({
      where: { service: cluster.name, key, counter: 0 },
      select: { source: true, worker: true, observedAt: true },
    });
    expect(entries.map((entry) => ({ ...entry, observedAt: entry.observedAt.toISOString() }))).toEqual([
      { source: "POLLER", worker: heldByA!.holder, observedAt: new Date(Date.parse(lockedAt(heldByA))).toISOString() },
    ]);
    // Read again: still one.
    const cycles = await db.pollRun.count({ where: { clusterId } });
    await waitFor(
      () => db.pollRun.count({ where: { clusterId } }),
      (count) => count >= cycles + 3,
      "three more cycles",
    );
    expect(await db.exclusivityEvent.count({ where: { service: cluster.name, key } })).toBe(2);
  });

  it("a release under lockAtLeastFor (lock_until moved back, still ahead): held and marked released until then, then RELEASED", async () => {
    const name = `report-at-least-${run}`;
    expect(await nodeA.acquire("shedlock", name, 60_000, 8_000)).toBe(true);
    const held = await waitFor(
      () => lockRow(shedlockKey(name)),
      (row) => row?.holder != null,
      "the ShedLock row to be seen held",
    );
    await nodeA.release("shedlock", name);
    const released = await waitFor(
      () => lockRow(shedlockKey(name)),
      (row) => (row?.details as { source?: { isReleased?: boolean } } | undefined)?.source?.isReleased === true,
      "the release to be seen while lockAtLeastFor still holds the name",
    );
    expect(released!.holder).toBe(held!.holder);
    expect(released!.expiresAt!.getTime()).toBeLessThan(held!.expiresAt!.getTime());
    const changes = await waitFor(
      () => changesOf(shedlockKey(name)),
      (rows) => rows.length > 0,
      "the release to be recorded once lockAtLeastFor ran out",
    );
    expect(changes).toEqual([{ kind: "HOLDER_LOST", ending: "RELEASED", fromHolder: held!.holder, toHolder: null }]);
  });

  it("a node writing in its JVM's zone (America/New_York) read with that table's timeZone: the expiry is the real one", async () => {
    const name = `ny-job-${run}`;
    const before = Date.now();
    expect(await nodeNewYork.acquire("shedlock", name, 60_000)).toBe(true);
    const held = await waitFor(
      () => lockRow(shedlockKey(name, "public.ny_shedlock")),
      (row) => row?.holder != null,
      "the New York node's row to be seen held",
    );
    // Read as UTC it would be hours off (and the hold long expired, or not yet begun).
    expect(Math.abs(held!.expiresAt!.getTime() - (before + 60_000))).toBeLessThan(30_000);
    expect(held!.details).toMatchObject({ source: { timeZone: "America/New_York" } });
    await nodeNewYork.release("shedlock", name);
    const changes = await waitFor(
      () => changesOf(shedlockKey(name, "public.ny_shedlock")),
      (rows) => rows.length > 0,
      "the release to be recorded",
    );
    expect(changes.map((row) => row.ending)).toEqual(["RELEASED"]);
  });
});

describe("the poller on Spring Integration's INT_LOCK (7.x)", () => {
  it("a registry's lock under its configured name (LOCK_KEY the name's UUID), released (row deleted): RELEASED", async () => {
    const name = `daily-report-${run}`;
    expect(await nodeB.acquire("spring", name, 60_000)).toBe(true);
    const held = await waitFor(
      () => lockRow(springKey(name)),
      (row) => row?.holder != null,
      "the INT_LOCK row to be seen held",
    );
    expect(held!.holder).toBe(nodeB.clientId);
    expect(held!.details).toMatchObject({
      source: { format: "spring-integration", schema: "7.x", region: "DEFAULT", name, lockKey: springLockKeyOf(name), clientId: nodeB.clientId },
    });
    await nodeB.release("spring", name);
    const changes = await waitFor(
      () => changesOf(springKey(name)),
      (rows) => rows.length > 0,
      "the release to be recorded",
    );
    expect(changes).toEqual([{ kind: "HOLDER_LOST", ending: "RELEASED", fromHolder: nodeB.clientId, toHolder: null }]);
  });

  it("a holder SIGKILLed: its row stays until EXPIRED_AFTER passes (EXPIRED); another client then takes it", async () => {
    const name = `nightly-sync-${run}`;
    const doomed = await startDbLockContender(scratch.url);
    contenders.push(doomed);
    expect(await doomed.acquire("spring", name, 4_000)).toBe(true);
    await waitFor(
      () => lockRow(springKey(name)),
      (row) => row?.holder === doomed.clientId,
      "the doomed node's hold to be seen",
    );
    await doomed.kill();
    const changes = await waitFor(
      () => changesOf(springKey(name)),
      (rows) => rows.length > 0,
      "the expiry to be recorded",
    );
    expect(changes).toEqual([{ kind: "HOLDER_LOST", ending: "EXPIRED", fromHolder: doomed.clientId, toHolder: null }]);
    expect(await nodeB.acquire("spring", name, 60_000)).toBe(true);
    await waitFor(
      () => lockRow(springKey(name)),
      (row) => row?.holder === nodeB.clientId,
      "node B's hold to be seen",
    );
    expect(await changesOf(springKey(name))).toHaveLength(1);
    await nodeB.release("spring", name);
  });

  it("a name not configured shows under its LOCK_KEY", async () => {
    const name = `unnamed-${run}`;
    expect(await nodeA.acquire("spring", name, 60_000)).toBe(true);
    const held = await waitFor(
      () => lockRow(springKey(springLockKeyOf(name))),
      (row) => row?.holder === nodeA.clientId,
      "the unnamed lock to be seen under its key",
    );
    expect(held!.details).not.toHaveProperty("source.name");
    await nodeA.release("spring", name);
  });
});

describe("the poller on Spring Integration's INT_LOCK (6.x: CREATED_DATE + ttlMs)", () => {
  const sixKey = (schema: string, name: string) => `${scratchName}/${schema}.int_lock/DEFAULT/${name}`;

  it("a 6.5.6 registry's lock: its expiry CREATED_DATE + ttlMs; released (row deleted): RELEASED", async () => {
    const name = `six-release-${run}`;
    expect(await sixLong.acquire("spring", name, 60_000)).toBe(true);
    const held = await waitFor(
      () => lockRow(sixKey("spring6_long", name)),
      (row) => row?.holder != null,
      "the 6.x row to be seen held",
    );
    expect(held!.holder).toBe(sixLong.clientId);
    const source = (held!.details as { source: { createdDate: string } }).source;
    expect(source).toMatchObject({ format: "spring-integration", schema: "6.x", name, ttlMs: 60_000, clientId: sixLong.clientId });
    expect(held!.expiresAt!.getTime()).toBe(Date.parse(source.createdDate) + 60_000);
    await sixLong.release("spring", name);
    const changes = await waitFor(
      () => changesOf(sixKey("spring6_long", name)),
      (rows) => rows.length > 0,
      "the release to be recorded",
    );
    expect(changes).toEqual([{ kind: "HOLDER_LOST", ending: "RELEASED", fromHolder: sixLong.clientId, toHolder: null }]);
  });

  it("a 6.5.6 holder SIGKILLed: EXPIRED once CREATED_DATE + ttlMs passes; another client then takes it", async () => {
    const name = `six-expiry-${run}`;
    const doomed = await startSpring6Contender(scratch.url, { schema: "spring6_short", ttlMs: 4_000 });
    contenders.push(doomed);
    await doomed.createSpringSchema();
    const taker = await startSpring6Contender(scratch.url, { schema: "spring6_short", ttlMs: 4_000 });
    contenders.push(taker);
    expect(await doomed.acquire("spring", name, 4_000)).toBe(true);
    await waitFor(
      () => lockRow(sixKey("spring6_short", name)),
      (row) => row?.holder === doomed.clientId,
      "the doomed node's hold to be seen",
    );
    await doomed.kill();
    const changes = await waitFor(
      () => changesOf(sixKey("spring6_short", name)),
      (rows) => rows.length > 0,
      "the expiry to be recorded",
    );
    expect(changes).toEqual([{ kind: "HOLDER_LOST", ending: "EXPIRED", fromHolder: doomed.clientId, toHolder: null }]);
    expect(await taker.acquire("spring", name, 4_000)).toBe(true);
    await waitFor(
      () => lockRow(sixKey("spring6_short", name)),
      (row) => row?.holder === taker.clientId,
      "the taker's hold to be seen",
    );
    expect(await changesOf(sixKey("spring6_short", name))).toHaveLength(1);
    await taker.release("spring", name);
    await taker.kill();
  });
});

describe("a hold taken over with no read in between", () => {
  for (const library of ["shedlock", "spring"] as const) {
    // ShedLock's locked_by is the host name: two nodes of one host are one holder, so a take by
    // the other is the same holder under a new token (HIDDEN_FLAP). Spring's CLIENT_ID differs.
    const transition = library === "shedlock" ? "HIDDEN_FLAP" : "HOLDER_CHANGED";
    it(`${library}: another node's take after the expiry reads as ${transition}, EXPIRED`, async () => {
      const name = `handover-${library}-${run}`;
      const source = createDatabaseHoldSource(cluster as Parameters<typeof createDatabaseHoldSource>[0]);
      try {
        expect(await nodeA.acquire(library, name, 4_000)).toBe(true);
        const key = library === "shedlock" ? shedlockKey(name) : springKey(springLockKeyOf(name));
        const observe = async (): Promise<HoldObservation> => {
          const found = await source.discover();
          const read = await source.observe(found.keys.filter((ref) => ref.key === key));
          return read.observations[0]!;
        };
        const first = await observe();
        expect(first.holder).not.toBeNull();
        await acquireWhenFree(nodeB, library, name, 60_000);
        const second = await observe();
        const detection = detectHoldChanges(detectHoldChanges(undefined, first).next, second);
        expect(detection.changes.map((change) => [change.kind, change.ending])).toEqual([[transition, "EXPIRED"]]);
        expect(second.holderToken).not.toBe(first.holderToken);
        await nodeB.release(library, name);
      } finally {
        await source.close();
      }
    });
  }
});

describe("tables that cannot be read", () => {
  it("a table that does not exist: one log line naming the setting; a table that goes away: its locks stale with their holder, the advisory locks read as usual", async () => {
    await waitFor(
      async () => logs,
      (lines) => lines.some((line) => line.includes(`tables[3].table`) && line.includes("no_such_locks") && line.includes("does not exist")),
      "the missing table to be logged",
    );
    const name = `doomed-${run}`;
    const doomedNode = await startDbLockContender(scratch.url, { shedlockTable: "doomed_shedlock" });
    contenders.push(doomedNode);
    expect(await doomedNode.acquire("shedlock", name, 60_000)).toBe(true);
    const key = shedlockKey(name, "public.doomed_shedlock");
    const held = await waitFor(
      () => lockRow(key),
      (row) => row?.holder != null,
      "the doomed table's lock to be seen held",
    );
    await admin.query("ALTER TABLE doomed_shedlock RENAME TO doomed_shedlock_gone");
    const stale = await waitFor(
      () => lockRow(key),
      (row) => row?.staleSince != null,
      "the lock to go stale",
    );
    expect(stale!.holder).toBe(held!.holder);
    expect(logs.some((line) => line.includes("tables[4].table") && line.includes("doomed_shedlock") && line.includes("stale"))).toBe(true);
    // The server's advisory locks are read as usual meanwhile.
    const session = new pg.Client({ connectionString: scratch.url, application_name: "advisory-during-outage" });
    await session.connect();
    try {
      await session.query("select pg_advisory_lock(4242)");
      await waitFor(
        () => lockRow(`${scratchName}/4242`),
        (row) => row?.holder?.startsWith("advisory-during-outage pid ") === true && row.staleSince === null,
        "an advisory lock to be read while a table fails",
      );
      await session.query("select pg_advisory_unlock(4242)");
    } finally {
      await session.end();
    }
    await admin.query("ALTER TABLE doomed_shedlock_gone RENAME TO doomed_shedlock");
    await waitFor(
      () => lockRow(key),
      (row) => row?.staleSince === null && row?.holder === held!.holder,
      "the lock to be read again",
    );
    expect(await changesOf(key)).toEqual([]);
    await doomedNode.release("shedlock", name);
  });

  it("the reachability check: degraded, naming the setting of the table that cannot be read", async () => {
    const check = await databaseKind.checkReachable(cluster as Parameters<typeof databaseKind.checkReachable>[0], 2_000);
    expect(check.status).toBe("degraded");
    expect(check.reason).toMatch(/shedlock table public\.no_such_locks \(clusters "pg-tables-[0-9a-f]+" tables\[3\]\.table\): it does not exist/);
  });

  it("a role without SELECT on a table: the table's lines name the setting and the GRANT; the advisory read answers", async () => {
    const role = `baton_tables_${run}`;
    await admin.query(`create role ${role} login password 'observer'`);
    try {
      const url = new URL(scratch.url);
      url.username = role;
      url.password = "observer";
      const lines: string[] = [];
      const source = createDatabaseHoldSource(
        { ...(cluster as Parameters<typeof createDatabaseHoldSource>[0]), url: url.toString() },
        { log: (line) => lines.push(line) },
      );
      try {
        const found = await source.discover();
        expect(found.errors.map((error) => error.message)).toEqual(
          expect.arrayContaining([
            expect.stringMatching(/tables\[0\]\.table\): permission denied to the url's role \(GRANT SELECT ON public\.shedlock TO baton_tables_/),
          ]),
        );
        expect(lines.some((line) => line.includes("tables[0].table") && line.includes("stale"))).toBe(true);
      } finally {
        await source.close();
      }
    } finally {
      await admin.query(`drop role ${role}`);
    }
  });
});

describe("the tables setting", () => {
  const entry = (tables: unknown[]) => ({ kind: "database", name: "bad-tables", url: "postgres://u:p@127.0.0.1:5432/jobs", tables });
  const load = (tables: unknown[]) => () => loadConfig({ BATON_CLUSTERS: JSON.stringify([entry(tables)]) });

  it.each([
    [[{ format: "flyway" }], /tables\[0\]\.format must be "shedlock", "spring-integration", "quartz" or "graphile-worker"/],
    [[{ table: "shedlock" }], /tables\[0\]\.format must be "shedlock", "spring-integration", "quartz" or "graphile-worker"/],
    [[{ format: "shedlock", table: "a.b.c" }], /tables\[0\]\.table must be a table name/],
    [[{ format: "shedlock", timeZone: "Mars/Olympus" }], /tables\[0\]\.timeZone must be a time zone name/],
    [[{ format: "spring-integration", regions: [] }], /tables\[0\]\.regions must name at least one region/],
    [[{ format: "spring-integration", names: [""] }], /tables\[0\]\.names\[0\] must not be empty/],
    [[{ format: "spring-integration", ttlMs: 5 }], /tables\[0\]\.ttlMs/],
    [[{ format: "shedlock", lockAtMostFor: 5 }], /tables\[0\].*unknown key "lockAtMostFor"/],
    [[{ format: "shedlock" }, { format: "shedlock", table: "SHEDLOCK" }], /tables\[1\]\.table names the same table as tables\[0\]/],
    [[{ format: "graphile-worker", schema: "a.b" }], /tables\[0\]\.schema must be a schema name/],
    [[{ format: "graphile-worker" }, { format: "graphile-worker", schema: "graphile_worker" }], /tables\[1\]\.schema names the same table as tables\[0\]/],
  ])("%j is refused naming the field", (tables, message) => {
    expect(load(tables)).toThrow(message);
  });

  it("defaults: ShedLock's table shedlock in UTC; INT_LOCK's region DEFAULT; graphile-worker's schema graphile_worker", () => {
    const parsed = loadConfig({
      BATON_CLUSTERS: JSON.stringify([entry([{ format: "shedlock" }, { format: "spring-integration" }, { format: "graphile-worker" }])]),
    }).clusters[0] as unknown as {
      tables: unknown[];
    };
    expect(parsed.tables).toEqual([
      { format: "shedlock", table: "shedlock", timeZone: "UTC" },
      { format: "spring-integration", table: "int_lock", regions: ["DEFAULT"], names: [], timeZone: "UTC" },
      { format: "graphile-worker", schema: "graphile_worker", table: "graphile_worker._private_job_queues", timeZone: "UTC" },
    ]);
  });

  it("Spring's LOCK_KEY of a name is Java's UUID.nameUUIDFromBytes", () => {
    expect(springLockKeyOf("daily-report")).toBe("1caf99b7-26b4-3380-8ff3-73bce5208e36");
  });
});
