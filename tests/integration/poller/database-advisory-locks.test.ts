import { randomUUID } from "node:crypto";

import createMutex from "advisory-lock";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { BoardThresholds } from "@/lib/board/board-types";
import { type ClusterConfig, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { ALL_LOCKS, listLocks } from "@/lib/locks/list-locks";
import { createDatabaseHoldSource } from "@/lib/sources/database";
import type { DatabaseSourceConfig } from "@/lib/sources/database/database-config";
import { databaseKind } from "@/lib/sources/database/database-kind";
import { createTestDb, registerCluster, type RunningPoller, startPoller, waitFor } from "@/tests/support/poller-harness";
import { startTcpProxy, type TcpProxy } from "@/tests/support/tcp-proxy";
import { createScratchDatabase, getTestDatabaseUrl } from "@/tests/support/test-database";
import { findFreePort } from "@/tools/free-port";

// The worker's poller against the suite's own PostgreSQL as the observed server: real sessions
// (pg.Client) holding, queueing for and releasing advisory locks in a scratch database, and npm
// advisory-lock 2.0.0 holding a named mutex. Each ending as the shared rule tells it from the
// holder's session after the read (checkHolders): released (the session lives on), session
// ended (expired), taken over (the first waiter got it while the old holder lived on). Then a
// holder idle in transaction past the bound, a server cut off mid-run (stale, never free), a
// role without pg_read_all_stats and a URL nobody answers.

const BOARD_THRESHOLDS: BoardThresholds = { flapChanges: 4, flapWindowMs: 600_000, stuckSamples: 3, recoveredAfterMs: null };
const databaseUrl = getTestDatabaseUrl();
const run = randomUUID().slice(0, 8);
let db: Db;
let scratch: { url: string; drop(): Promise<void> };
let scratchName: string;
let proxy: TcpProxy;
const sessions: pg.Client[] = [];
const pollers: RunningPoller[] = [];
const logs: string[] = [];
let direct: { cluster: ClusterConfig; clusterId: number };
let proxied: { cluster: ClusterConfig; clusterId: number };

type ChangeRow = {
  kind: string;
  ending: string | null;
  fromHolder: string | null;
  toHolder: string | null;
  predictedHolder: string | null;
  prediction: string | null;
};

async function changesOf(clusterId: number, key: string): Promise<ChangeRow[]> {
  return db.holderChange.findMany({
    where: { clusterId, resource: { resourceKey: key }, kind: { not: "HOLDER_APPEARED" } },
    orderBy: [{ newSeenAt: "asc" }, { id: "asc" }],
    select: { kind: true, ending: true, fromHolder: true, toHolder: true, predictedHolder: true, prediction: true },
  });
}

async function lockRow(clusterId: number, key: string) {
  return db.heldResource.findUnique({
    where: { clusterId_resourceKey: { clusterId, resourceKey: key } },
    select: { holder: true, holderToken: true, expiresAt: true, consumers: true, details: true, staleSince: true },
  });
}

const waitersOf = (row: Awaited<ReturnType<typeof lockRow>>) => (row?.consumers as { name: string }[] | undefined)?.map((w) => w.name);

/** A session of the scratch database named `name` (its application_name); its pid. */
async function session(name: string, url = scratch.url): Promise<{ client: pg.Client; pid: number; label: string }> {
  const client = new pg.Client({ connectionString: url, application_name: name });
  await client.connect();
  // A session the test ends on purpose must not crash the run.
  client.on("error", () => undefined);
  sessions.push(client);
  const pid = (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
  return { client, pid, label: `${name} pid ${pid}` };
}

function clusterEntry(name: string, url: string) {
  return {
    kind: "database",
    name,
    url,
    databases: [scratchName],
    locks: [
      { key: "42", name: "daily-report", mustBeHeld: true },
      { key: "7,12", name: "pair-job" },
      { library: "advisory-lock", name: `nightly-${run}` },
    ],
    idleInTransactionMaxMs: 1_000,
    pollIntervalMs: 300,
    discoveryIntervalMs: 1_000,
    statementTimeoutMs: 1_000,
    connectTimeoutMs: 1_000,
  };
}

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  scratch = await createScratchDatabase(databaseUrl, "advisory");
  scratchName = new URL(scratch.url).pathname.slice(1);
  proxy = await startTcpProxy(Number(new URL(databaseUrl).port));
  const proxiedUrl = new URL(scratch.url);
  proxiedUrl.port = String(proxy.port);
  const clusters = loadConfig({
    BATON_CLUSTERS: JSON.stringify([clusterEntry(`pg-advisory-${run}`, scratch.url), clusterEntry(`pg-advisory-cut-${run}`, proxiedUrl.toString())]),
  }).clusters;
  direct = { cluster: clusters[0]!, clusterId: await registerCluster(db, clusters[0]!) };
  proxied = { cluster: clusters[1]!, clusterId: await registerCluster(db, clusters[1]!) };
  pollers.push(startPoller({ databaseUrl, cluster: direct.cluster, clusterId: direct.clusterId, pollerId: `pg-advisory-${run}`, logs }));
  pollers.push(startPoller({ databaseUrl, cluster: proxied.cluster, clusterId: proxied.clusterId, pollerId: `pg-advisory-cut-${run}`, logs }));
}, 120_000);

afterAll(async () => {
  for (const poller of pollers) await poller.stop();
  for (const client of sessions) await client.end().catch(() => undefined);
  await proxy?.close();
  await db?.cluster.deleteMany({ where: { name: { in: [direct?.cluster.name, proxied?.cluster.name].filter((n) => n !== undefined) } } });
  await scratch?.drop();
  await db?.$disconnect();
});

describe("the poller on PostgreSQL advisory locks", () => {
  it("a named key held with a queue of two: holder and waiters in order; an unlock hands it to the first waiter (TAKEN_OVER, as predicted)", async () => {
    const key = `${scratchName}/daily-report`;
    // A lock that must be held is watched before anyone takes it: seen free, not missing.
    const free = await waitFor(
      () => lockRow(direct.clusterId, key),
      (row) => row !== null,
      "the must-be-held lock to be watched",
    );
    expect(free).toMatchObject({ holder: null, staleSince: null });
    const a = await session("worker-a");
    const b = await session("worker-b");
    const c = await session("worker-c");
    await a.client.query("select pg_advisory_lock(42)");
    const bWaits = b.client.query("select pg_advisory_lock(42)");
    await waitFor(
      () => lockRow(direct.clusterId, key),
      (row) => waitersOf(row)?.length === 1,
      "worker-b to wait",
    );
    const cWaits = c.client.query("select pg_advisory_lock(42)");
    const held = await waitFor(
      () => lockRow(direct.clusterId, key),
      (row) => waitersOf(row)?.length === 2,
      "worker-a to hold with two waiters",
    );
    expect(held).toMatchObject({ holder: a.label, expiresAt: null, staleSince: null });
    expect(held!.holderToken).toMatch(new RegExp(`^${a.pid}@\\d{4}-`));
    expect(waitersOf(held)).toEqual([b.label, c.label]);
    // The store keeps the kind's details under `source`.
    expect(held!.details).toMatchObject({
      source: { database: scratchName, key: "42", keyForm: "bigint", name: "daily-report", holderSession: { pid: a.pid, applicationName: "worker-a" } },
    });

    await a.client.query("select pg_advisory_unlock(42)");
    await bWaits;
    const changes = await waitFor(
      () => changesOf(direct.clusterId, key),
      (rows) => rows.length > 0,
      "the hand-over to be recorded",
    );
    expect(changes).toEqual([
      { kind: "HOLDER_CHANGED", ending: "TAKEN_OVER", fromHolder: a.label, toHolder: b.label, predictedHolder: b.label, prediction: "CONFIRMED" },
    ]);
    expect(waitersOf(await lockRow(direct.clusterId, key))).toEqual([c.label]);
    await b.client.query("select pg_advisory_unlock(42)");
    await cWaits;
    await c.client.query("select pg_advisory_unlock(42)");
  });

  it("an unnamed key unlocked while its session lives on: RELEASED", async () => {
    const key = `${scratchName}/43`;
    const d = await session("worker-d");
    await d.client.query("select pg_advisory_lock(43)");
    await waitFor(
      () => lockRow(direct.clusterId, key),
      (row) => row?.holder === d.label,
      "worker-d to hold key 43",
    );
    await d.client.query("select pg_advisory_unlock(43)");
    const changes = await waitFor(
      () => changesOf(direct.clusterId, key),
      (rows) => rows.length > 0,
      "the release to be recorded",
    );
    expect(changes.map((r) => [r.kind, r.ending, r.fromHolder, r.toHolder])).toEqual([["HOLDER_LOST", "RELEASED", d.label, null]]);
  });

  it("two int4 keys whose holder's session ends (terminated) while another waits: the waiter takes it, the ending EXPIRED (session ended)", async () => {
    const key = `${scratchName}/pair-job`;
    const e = await session("worker-e");
    const f = await session("worker-f");
    await e.client.query("select pg_advisory_lock(7, 12)");
    const fWaits = f.client.query("select pg_advisory_lock(7, 12)");
    await waitFor(
      () => lockRow(direct.clusterId, key),
      (row) => row?.holder === e.label && waitersOf(row)?.length === 1,
      "worker-e to hold with worker-f waiting",
    );
    const admin = await session("test-admin");
    await admin.client.query("select pg_terminate_backend($1)", [e.pid]);
    await fWaits;
    const changes = await waitFor(
      () => changesOf(direct.clusterId, key),
      (rows) => rows.length > 0,
      "the session's end to be recorded",
    );
    expect(changes.map((r) => [r.kind, r.ending, r.fromHolder, r.toHolder])).toEqual([["HOLDER_CHANGED", "EXPIRED", e.label, f.label]]);
    await f.client.query("select pg_advisory_unlock(7, 12)");
  });

  it("a holder whose client disconnects without unlocking: HOLDER_LOST, EXPIRED (session ended)", async () => {
    const key = `${scratchName}/44`;
    const g = await session("worker-g");
    await g.client.query("select pg_advisory_lock(44)");
    await waitFor(
      () => lockRow(direct.clusterId, key),
      (row) => row?.holder === g.label,
      "worker-g to hold key 44",
    );
    await g.client.end();
    const changes = await waitFor(
      () => changesOf(direct.clusterId, key),
      (rows) => rows.length > 0,
      "the session's end to be recorded",
    );
    expect(changes.map((r) => [r.kind, r.ending, r.fromHolder, r.toHolder])).toEqual([["HOLDER_LOST", "EXPIRED", g.label, null]]);
  });

  it("npm advisory-lock's mutex under its configured name (sha256 of the name); its unlock closes its session, read as RELEASED, not as a session that died", async () => {
    const name = `nightly-${run}`;
    const key = `${scratchName}/${name}`;
    const url = new URL(scratch.url);
    url.searchParams.set("application_name", "nightly-export");
    const mutex = createMutex(url.toString())(name);
    const unlock = await mutex.lock();
    let held: Awaited<ReturnType<typeof lockRow>>;
    try {
      held = await waitFor(
        () => lockRow(direct.clusterId, key),
        (row) => row?.holder?.startsWith("nightly-export pid ") === true,
        "the mutex to be seen held",
      );
    } finally {
      // Its session must not outlive the test (the scratch database's drop would end it under the library).
      await unlock();
    }
    expect(held!.details).toMatchObject({ source: { keyForm: "int4-pair", name, library: "advisory-lock" } });
    const changes = await waitFor(
      () => changesOf(direct.clusterId, key),
      (rows) => rows.length > 0,
      "the unlock to be recorded",
    );
    expect(changes.map((r) => [r.kind, r.ending, r.fromHolder])).toEqual([["HOLDER_LOST", "RELEASED", held!.holder]]);
  });

  it("a holder idle in transaction past idleInTransactionMaxMs: the stuck lock in its details", async () => {
    const key = `${scratchName}/45`;
    const h = await session("worker-h");
    await h.client.query("begin");
    await h.client.query("select pg_advisory_xact_lock(45)");
    const stuck = await waitFor(
      () => lockRow(direct.clusterId, key),
      (row) => (row?.details as { source?: { isStuckIdleInTransaction?: boolean } } | undefined)?.source?.isStuckIdleInTransaction === true,
      "the idle transaction to be flagged",
    );
    expect(stuck).toMatchObject({ holder: h.label, details: { source: { holderSession: { state: "idle in transaction" } } } });
    // The board's finding (and so the "stuck" alert, which reads the same rules), in words.
    const board = await listLocks(db, { clusterNames: [direct.cluster.name], thresholds: BOARD_THRESHOLDS, query: ALL_LOCKS });
    const flag = board.locks.find((lock) => lock.key === key)?.flags.find((f) => f.rule === "stuck-holder");
    expect(flag?.detail).toMatch(new RegExp(`^${h.label}: its session \\(pid \\d+\\) has been idle in a transaction for \\d+ s, past idleInTransactionMaxMs`));
    await h.client.query("commit");
    const changes = await waitFor(
      () => changesOf(direct.clusterId, key),
      (rows) => rows.length > 0,
      "the commit's release to be recorded",
    );
    expect(changes.map((r) => [r.kind, r.ending])).toEqual([["HOLDER_LOST", "RELEASED"]]);
  });

  it("a server cut off mid-run: its locks go stale with their holder kept (never free), a line names the setting; they come back", async () => {
    const key = `${scratchName}/46`;
    const k = await session("worker-k");
    await k.client.query("select pg_advisory_lock(46)");
    await waitFor(
      () => lockRow(proxied.clusterId, key),
      (row) => row?.holder === k.label,
      "worker-k to be seen through the proxy",
    );
    proxy.cut();
    const stale = await waitFor(
      () => lockRow(proxied.clusterId, key),
      (row) => row?.staleSince !== null,
      "the lock to go stale",
    );
    expect(stale!.holder).toBe(k.label);
    expect(logs.some((line) => line.includes(`clusters "${proxied.cluster.name}" url`) && line.includes("stale"))).toBe(true);
    proxy.restore();
    await waitFor(
      () => lockRow(proxied.clusterId, key),
      (row) => row?.staleSince === null && row?.holder === k.label,
      "the lock to be read again",
    );
    expect(await changesOf(proxied.clusterId, key)).toEqual([]);
  });

  it("the reachability check: ok as a superuser; degraded naming pg_read_all_stats for a role without it (whose reads show holders by pid and application name); down naming the url for a port nobody answers", async () => {
    const config = (overrides: Partial<DatabaseSourceConfig>) => ({ ...(direct.cluster as DatabaseSourceConfig), ...overrides });
    expect(await databaseKind.checkReachable(config({}), 2_000)).toEqual({ status: "ok", reason: null });
    const role = `baton_observer_${run}`;
    const admin = await session("test-admin-roles");
    await admin.client.query(`create role ${role} login password 'observer'`);
    try {
      const url = new URL(scratch.url);
      url.username = role;
      url.password = "observer";
      const limited = await databaseKind.checkReachable(config({ url: url.toString() }), 2_000);
      expect(limited.status).toBe("degraded");
      expect(limited.reason).toContain(`role ${role} is not in pg_read_all_stats`);
      // What such a role reads: the holder by pid and application name, its token the pid alone, said once in the log.
      const m = await session("worker-m");
      await m.client.query("select pg_advisory_lock(47)");
      const lines: string[] = [];
      const source = createDatabaseHoldSource(config({ url: url.toString() }), { log: (line) => lines.push(line) });
      try {
        const found = await source.discover();
        const read = await source.observe(found.keys.filter((ref) => ref.key === `${scratchName}/47`));
        expect(read.observations).toMatchObject([
          { holder: m.label, holderToken: String(m.pid), details: { holderSession: { clientAddr: null, sessionStartedAt: null } } },
        ]);
        expect(lines.filter((line) => line.includes("is not in pg_read_all_stats"))).toHaveLength(1);
        expect(source.canReadStats()).toBe(false);
      } finally {
        await source.close();
        await m.client.query("select pg_advisory_unlock(47)");
      }
    } finally {
      await admin.client.query(`drop role ${role}`);
    }
    const nobody = new URL(scratch.url);
    nobody.port = String(await findFreePort());
    const down = await databaseKind.checkReachable(config({ url: nobody.toString() }), 1_000);
    expect(down.status).toBe("down");
    expect(down.reason).toMatch(/clusters "pg-advisory-[0-9a-f]+" url\): connection refused/);
  });
});
