import { randomUUID } from "node:crypto";

import pg from "pg";
import PgBoss from "pg-boss";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type ClusterConfig, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { createTestDb, registerCluster, type RunningPoller, startPoller, waitFor } from "@/tests/support/poller-harness";
import { createScratchDatabase, getTestDatabaseUrl } from "@/tests/support/test-database";

// pg-boss 10.4.2, the real library, running its own maintenance in a scratch database of the
// suite's PostgreSQL: each maintenance step is a transaction that first takes
// pg_advisory_xact_lock(first 64 bits of sha224("<database>.pgboss.<schema>")), the key Baton
// names "pg-boss maintenance" (the `{ "library": "pg-boss" }` entry of `locks`). The step is held
// inside the lock by the test's own table locks (pg-boss's archive step writes to its archive
// table, its expiry step to its job table), as a slow maintenance would hold it. Endings: the
// step commits, its pooled session lives on (RELEASED); another pg-boss node queued on the key
// gets it while the first node's session lives on (TAKEN_OVER, the first waiter as predicted);
// the holding session is terminated (EXPIRED: its session ended).

const databaseUrl = getTestDatabaseUrl();
const run = randomUUID().slice(0, 8);
const schema = `jobs_${run}`;
let db: Db;
let scratch: { url: string; drop(): Promise<void> };
let scratchName: string;
let admin: pg.Client;
const bosses: PgBoss[] = [];
const sessions: pg.Client[] = [];
let poller: RunningPoller;
let cluster: ClusterConfig;
let clusterId: number;
const logs: string[] = [];

type ChangeRow = { kind: string; ending: string | null; fromHolder: string | null; toHolder: string | null; predictedHolder: string | null };

async function changesOf(key: string): Promise<ChangeRow[]> {
  return db.holderChange.findMany({
    where: { clusterId, resource: { resourceKey: key }, kind: { not: "HOLDER_APPEARED" } },
    orderBy: [{ newSeenAt: "asc" }, { id: "asc" }],
    select: { kind: true, ending: true, fromHolder: true, toHolder: true, predictedHolder: true },
  });
}

async function lockRow(key: string) {
  return db.heldResource.findUnique({
    where: { clusterId_resourceKey: { clusterId, resourceKey: key } },
    select: { holder: true, holderToken: true, consumers: true, details: true, staleSince: true },
  });
}

const waitersOf = (row: Awaited<ReturnType<typeof lockRow>>) => (row?.consumers as { name: string }[] | undefined)?.map((w) => w.name) ?? [];

/** A pg-boss node of the scratch database, its sessions named `name`; no timers of its own: the test runs its maintenance. */
async function startBoss(name: string): Promise<PgBoss> {
  const boss = new PgBoss({ connectionString: scratch.url, schema, application_name: name, supervise: false, schedule: false, max: 2 });
  // A session the test terminates fails pg-boss's step, not the run.
  boss.on("error", () => undefined);
  await boss.start();
  bosses.push(boss);
  return boss;
}

/** A session of the test's own, holding `table` of pg-boss's schema in a transaction until it ends. */
async function lockTable(table: "archive" | "job"): Promise<{ end(): Promise<void> }> {
  const client = new pg.Client({ connectionString: scratch.url, application_name: "test-table-lock" });
  await client.connect();
  client.on("error", () => undefined);
  sessions.push(client);
  await client.query("begin");
  await client.query(`lock table ${schema}.${table} in access exclusive mode`);
  return { end: () => client.query("rollback").then(() => undefined) };
}

/** The pid of a holder label "<application_name> pid <pid>". */
const pidOf = (label: string | null | undefined) => Number(/ pid (\d+)$/.exec(label ?? "")?.[1]);

/** Waits until a session named `name` waits on a lock of the table `table`: its step is inside the advisory lock. */
async function waitForStepBlockedOn(name: string, table: string): Promise<void> {
  await waitFor(
    () =>
      admin.query<{ n: number }>(
        `select count(*)::int as n from pg_locks l join pg_stat_activity a using (pid)
         where a.application_name = $1 and not l.granted and l.relation = to_regclass($2)`,
        [name, `${schema}.${table}`],
      ),
    (answer) => answer.rows[0]!.n > 0,
    `${name}'s maintenance step to wait on ${table}`,
  );
}

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  scratch = await createScratchDatabase(databaseUrl, "pgboss");
  scratchName = new URL(scratch.url).pathname.slice(1);
  admin = new pg.Client({ connectionString: scratch.url });
  await admin.connect();
  cluster = loadConfig({
    BATON_CLUSTERS: JSON.stringify([
      {
        kind: "database",
        name: `pg-boss-${run}`,
        url: scratch.url,
        databases: [scratchName],
        locks: [{ library: "pg-boss", schema }],
        pollIntervalMs: 200,
        discoveryIntervalMs: 1_000,
        statementTimeoutMs: 1_000,
        connectTimeoutMs: 1_000,
      },
    ]),
  }).clusters[0]!;
  clusterId = await registerCluster(db, cluster);
  poller = startPoller({ databaseUrl, cluster, clusterId, pollerId: `pg-boss-${run}`, logs });
}, 120_000);

afterAll(async () => {
  await poller?.stop();
  for (const client of sessions) await client.end().catch(() => undefined);
  for (const boss of bosses) await boss.stop({ graceful: false, wait: true }).catch(() => undefined);
  await admin?.end().catch(() => undefined);
  if (cluster) await db?.cluster.deleteMany({ where: { name: cluster.name } });
  await scratch?.drop();
  await db?.$disconnect();
});

const key = () => `${scratchName}/pg-boss maintenance`;

describe("pg-boss's maintenance lock, held by the real library", () => {
  it("a maintenance step inside the lock: held by the node's session under the configured name; it commits: RELEASED", async () => {
    const boss = await startBoss("billing-jobs-a");
    const archive = await lockTable("archive");
    const maintained = boss.maintain();
    await waitForStepBlockedOn("billing-jobs-a", "archive");
    const held = await waitFor(
      () => lockRow(key()),
      (row) => row?.holder?.startsWith("billing-jobs-a pid ") === true,
      "pg-boss's maintenance lock to be seen held",
    );
    expect(held!.details).toMatchObject({ source: { library: "pg-boss", name: "pg-boss maintenance", keyForm: "bigint" } });
    // The step waits inside the lock: nothing changes until the test lets it go on.
    const before = (await changesOf(key())).length;
    await archive.end();
    await maintained;
    const changes = await waitFor(
      () => changesOf(key()),
      (rows) => rows.length > before,
      "the step's commit to be recorded",
    );
    // The archive step's commit; the drop step after it may take the key again and let it go.
    expect(changes[before]).toMatchObject({ kind: "HOLDER_LOST", ending: "RELEASED", fromHolder: held!.holder });
    expect(changes.slice(before).every((r) => r.ending === "RELEASED")).toBe(true);
  });

  it("a second node queued on the key gets it when the first node's step commits: TAKEN_OVER, as predicted; its session terminated: EXPIRED", async () => {
    const [nodeA, nodeB] = [await startBoss("billing-jobs-b1"), await startBoss("billing-jobs-b2")];
    // Node A's archive step holds the lock (it waits on the archive table); node B's first step queues on the key.
    const archive = await lockTable("archive");
    const maintainedA = nodeA.maintain().catch(() => undefined);
    await waitForStepBlockedOn("billing-jobs-b1", "archive");
    const maintainedB = nodeB.maintain().catch(() => undefined);
    const queued = await waitFor(
      () => lockRow(key()),
      (row) => row?.holder?.startsWith("billing-jobs-b1 pid ") === true && waitersOf(row).some((w) => w.startsWith("billing-jobs-b2 pid ")),
      "node A holding, node B waiting",
    );
    const before = (await changesOf(key())).length;
    // Node A's step holds a lock on the job table too; the test queues for that table behind it, so
    // that when A commits, node B gets the key and then waits on the job table, holding the key.
    const job = lockTable("job");
    await waitForStepBlockedOn("test-table-lock", "job");
    await archive.end();
    const taken = await waitFor(
      () => lockRow(key()),
      (row) => row?.holder?.startsWith("billing-jobs-b2 pid ") === true,
      "node B to hold the key",
    );
    const handed = await waitFor(
      () => changesOf(key()),
      (rows) => rows.length > before,
      "the hand-over to be recorded",
    );
    expect(handed.slice(before).map((r) => [r.kind, r.ending, r.fromHolder, r.toHolder, r.predictedHolder])).toEqual([
      ["HOLDER_CHANGED", "TAKEN_OVER", queued!.holder, taken!.holder, taken!.holder],
    ]);

    // Node B's session terminated while it holds the key: the hold ended with its session.
    await admin.query("select pg_terminate_backend($1)", [pidOf(taken!.holder)]);
    const ended = await waitFor(
      () => changesOf(key()),
      (rows) => rows.length > before + 1,
      "the terminated session's ending to be recorded",
    );
    expect(ended[before + 1]).toMatchObject({ ending: "EXPIRED", fromHolder: taken!.holder });
    await (await job).end();
    await Promise.all([maintainedA, maintainedB]);
  });
});
