import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { createInterface } from "node:readline";

import { Logger, makeWorkerUtils, type Runner, run, type WorkerUtils } from "graphile-worker";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type ClusterConfig, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { createTestDb, registerCluster, type RunningPoller, startPoller, waitFor } from "@/tests/support/poller-harness";
import { createScratchDatabase, getTestDatabaseUrl } from "@/tests/support/test-database";

// graphile-worker 0.17.3, the real library, in a scratch database of the suite's PostgreSQL: a
// named queue runs one job at a time, its <schema>._private_job_queues row locked by the worker
// running it (locked_by, locked_at). Baton reads one lock per queue (`{ "format":
// "graphile-worker" }` of `tables`): the job completing frees the row (RELEASED); the next job of
// the queue is the next hold; a worker SIGKILLed mid-job leaves its queue locked, held by the dead
// worker until graphile-worker's own bound (locked_at + 4 h), never read as free. graphile-worker
// turns row-level security on for its tables: a role granted only SELECT reads no row, which
// Baton says, naming the setting, and the locks it read go stale rather than free.

const databaseUrl = getTestDatabaseUrl();
const run8 = randomUUID().slice(0, 8);
const schema = `gw_${run8}`;
const observerRole = `gw_observer_${run8}`;
const quiet = new Logger(() => () => undefined);
let db: Db;
let scratch: { url: string; drop(): Promise<void> };
let scratchName: string;
let admin: pg.Client;
let utils: WorkerUtils;
const runners: Runner[] = [];
const children: ChildProcess[] = [];
const pollers: RunningPoller[] = [];
const logs: string[] = [];
let owner: { cluster: ClusterConfig; clusterId: number };
let observer: { cluster: ClusterConfig; clusterId: number };

type ChangeRow = { kind: string; ending: string | null; fromHolder: string | null; toHolder: string | null };

async function changesOf(clusterId: number, key: string): Promise<ChangeRow[]> {
  return db.holderChange.findMany({
    where: { clusterId, resource: { resourceKey: key }, kind: { not: "HOLDER_APPEARED" } },
    orderBy: [{ newSeenAt: "asc" }, { id: "asc" }],
    select: { kind: true, ending: true, fromHolder: true, toHolder: true },
  });
}

async function lockRow(clusterId: number, key: string) {
  return db.heldResource.findUnique({
    where: { clusterId_resourceKey: { clusterId, resourceKey: key } },
    select: { holder: true, holderToken: true, expiresAt: true, details: true, staleSince: true },
  });
}

const queueKey = (queue: string) => `${scratchName}/${schema}._private_job_queues/${queue}`;

/** The gates of the "gated" jobs this process's worker has started, by the job's name: each runs until its gate opens. */
const gates = new Map<string, () => void>();

/** A worker of this process whose "gated" jobs run until the test opens their gate. */
async function startGatedRunner(): Promise<Runner> {
  const runner = await run({
    connectionString: scratch.url,
    schema,
    concurrency: 1,
    pollInterval: 100,
    noHandleSignals: true,
    logger: quiet,
    taskList: {
      gated: async (payload) => {
        const { name } = payload as { name: string };
        await new Promise<void>((resolve) => gates.set(name, resolve));
      },
    },
  });
  runners.push(runner);
  return runner;
}

/** Waits until the job named `name` runs, then lets it complete. */
async function finishJob(name: string): Promise<void> {
  await waitFor(
    async () => gates.has(name),
    (has) => has,
    `the job ${name} to start`,
  );
  gates.get(name)!();
}

function clusterEntry(name: string, url: string) {
  return {
    kind: "database",
    name,
    url,
    databases: [scratchName],
    tables: [{ format: "graphile-worker", schema }],
    pollIntervalMs: 200,
    discoveryIntervalMs: 1_000,
    statementTimeoutMs: 1_000,
    connectTimeoutMs: 1_000,
  };
}

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  scratch = await createScratchDatabase(databaseUrl, "graphile");
  scratchName = new URL(scratch.url).pathname.slice(1);
  admin = new pg.Client({ connectionString: scratch.url });
  await admin.connect();
  // graphile-worker's own migrations create its schema and tables.
  utils = await makeWorkerUtils({ connectionString: scratch.url, schema, logger: quiet });
  await utils.migrate();
  await startGatedRunner();
  // A read-only role granted SELECT, as an operator would grant it: row-level security hides the rows from it.
  await admin.query(`create role ${observerRole} login password 'observer'`);
  await admin.query(`grant usage on schema ${schema} to ${observerRole}`);
  await admin.query(`grant select on all tables in schema ${schema} to ${observerRole}`);
  const observerUrl = new URL(scratch.url);
  observerUrl.username = observerRole;
  observerUrl.password = "observer";
  const clusters = loadConfig({
    BATON_CLUSTERS: JSON.stringify([clusterEntry(`pg-graphile-${run8}`, scratch.url), clusterEntry(`pg-graphile-ro-${run8}`, observerUrl.toString())]),
  }).clusters;
  owner = { cluster: clusters[0]!, clusterId: await registerCluster(db, clusters[0]!) };
  observer = { cluster: clusters[1]!, clusterId: await registerCluster(db, clusters[1]!) };
  pollers.push(startPoller({ databaseUrl, cluster: owner.cluster, clusterId: owner.clusterId, pollerId: `pg-graphile-${run8}`, logs }));
}, 120_000);

afterAll(async () => {
  for (const poller of pollers) await poller.stop();
  for (const child of children) child.kill("SIGKILL");
  for (const open of gates.values()) open();
  for (const runner of runners) await runner.stop().catch(() => undefined);
  await utils?.release();
  await admin?.end().catch(() => undefined);
  await db?.cluster.deleteMany({ where: { name: { in: [owner?.cluster.name, observer?.cluster.name].filter((n) => n !== undefined) } } });
  await scratch?.drop();
  // The role is the server's: dropped once the database that granted it anything is gone.
  const server = new pg.Client({ connectionString: databaseUrl });
  await server.connect();
  await server.query(`drop role if exists ${observerRole}`).catch(() => undefined);
  await server.end();
  await db?.$disconnect();
});

describe("graphile-worker's named queues", () => {
  it("a job of a named queue running: the queue held by its worker (locked_by) until 4 h after locked_at; it completes: RELEASED; the next job is the next hold", async () => {
    const queue = `serial-${run8}`;
    await utils.addJob("gated", { name: "first" }, { queueName: queue });
    await utils.addJob("gated", { name: "second" }, { queueName: queue });
    const held = await waitFor(
      () => lockRow(owner.clusterId, queueKey(queue)),
      (row) => row?.holder != null,
      "the queue to be seen locked",
    );
    const source = (held!.details as { source: Record<string, unknown> }).source;
    expect(source).toMatchObject({ format: "graphile-worker", schema, queueName: queue, lockedBy: held!.holder });
    expect(held!.expiresAt!.getTime()).toBe(Date.parse(String(source.lockedAt)) + 4 * 3_600_000);
    const [row] = (await admin.query<{ locked_by: string }>(`select locked_by from ${schema}._private_job_queues where queue_name = $1`, [queue])).rows;
    expect(held!.holder).toBe(row!.locked_by);

    // The first job completes: graphile-worker frees the queue, then takes it again for the second.
    await finishJob("first");
    const next = await waitFor(
      () => lockRow(owner.clusterId, queueKey(queue)),
      (row) => row?.holderToken != null && row.holderToken !== held!.holderToken,
      "the second job's hold",
    );
    const changes = await changesOf(owner.clusterId, queueKey(queue));
    expect(changes[0]).toMatchObject({ ending: "RELEASED", fromHolder: held!.holder });
    await finishJob("second");
    const freed = await waitFor(
      () => changesOf(owner.clusterId, queueKey(queue)),
      (rows) => rows.some((r) => r.kind === "HOLDER_LOST"),
      "the second job's release",
    );
    expect(freed.at(-1)).toMatchObject({ kind: "HOLDER_LOST", ending: "RELEASED", fromHolder: next!.holder });
  });

  it("a worker SIGKILLed mid-job: its queue stays held by the dead worker (graphile-worker frees it 4 h after locked_at), never read as free", async () => {
    const queue = `crash-${run8}`;
    const child = spawn(process.execPath, [path.join(import.meta.dirname, "../../support/graphile-worker/hanging-worker.mjs"), scratch.url, schema], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(child);
    const running = new Promise<void>((resolve) => {
      createInterface({ input: child.stdout! }).on("line", (line) => {
        if (line.startsWith("running ")) resolve();
      });
    });
    await utils.addJob("hang", {}, { queueName: queue });
    await running;
    const held = await waitFor(
      () => lockRow(owner.clusterId, queueKey(queue)),
      (row) => row?.holder != null,
      "the crashing worker's queue to be seen locked",
    );
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
    // Read again and again after the death: still held, by the dead worker, until its bound.
    const cycles = await db.pollRun.count({ where: { clusterId: owner.clusterId } });
    await waitFor(
      () => db.pollRun.count({ where: { clusterId: owner.clusterId } }),
      (count) => count >= cycles + 5,
      "five more cycles after the kill",
    );
    expect(await lockRow(owner.clusterId, queueKey(queue))).toMatchObject({ holder: held!.holder, holderToken: held!.holderToken, staleSince: null });
    expect(await changesOf(owner.clusterId, queueKey(queue))).toEqual([]);
    // Its operator frees it (what graphile-worker's stale-lock reset does after 4 h): released.
    await admin.query(`update ${schema}._private_job_queues set locked_at = null, locked_by = null where queue_name = $1`, [queue]);
    const freed = await waitFor(
      () => changesOf(owner.clusterId, queueKey(queue)),
      (rows) => rows.length > 0,
      "the freed queue's ending",
    );
    expect(freed).toEqual([{ kind: "HOLDER_LOST", ending: "RELEASED", fromHolder: held!.holder, toHolder: null }]);
  });

  it("a role granted SELECT only: row-level security shows it no row, and Baton says so, naming the setting, never reading the queues as free", async () => {
    const queue = `hidden-${run8}`;
    await utils.addJob("gated", { name: "hidden" }, { queueName: queue });
    await waitFor(
      async () => gates.has("hidden"),
      (has) => has,
      "the job to start",
    );
    const observerLogs: string[] = [];
    pollers.push(
      startPoller({ databaseUrl, cluster: observer.cluster, clusterId: observer.clusterId, pollerId: `pg-graphile-ro-${run8}`, logs: observerLogs }),
    );
    const line = await waitFor(
      async () => observerLogs.find((entry) => entry.includes("row-level security")),
      (found) => found !== undefined,
      "the line about row-level security",
    );
    expect(line).toContain(`clusters "${observer.cluster.name}" tables[0].schema`);
    expect(line).toContain(`ALTER ROLE ${observerRole} BYPASSRLS`);
    expect(await lockRow(observer.clusterId, queueKey(queue))).toBeNull();
    // Granted BYPASSRLS, the same role reads the queue held.
    await admin.query(`alter role ${observerRole} bypassrls`);
    const seen = await waitFor(
      () => lockRow(observer.clusterId, queueKey(queue)),
      (row) => row?.holder != null,
      "the queue to be read once the role bypasses row-level security",
    );
    expect(seen!.staleSince).toBeNull();
    await finishJob("hidden");
  });
});
