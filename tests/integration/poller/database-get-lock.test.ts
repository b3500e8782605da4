import { randomUUID } from "node:crypto";

import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type ClusterConfig, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import type { DatabaseSourceConfig } from "@/lib/sources/database/database-config";
import { databaseKind } from "@/lib/sources/database/database-kind";
import { createGetLockHoldSource } from "@/lib/sources/database/get-lock-source";
import { type JdbcGetLockClient, startJdbcGetLockClient } from "@/tests/support/mariadb-jdbc-clients";
import { type MariadbServer, startMariadbServer } from "@/tests/support/mariadb-servers";
import { createTestDb, registerCluster, type RunningPoller, startPoller, waitFor } from "@/tests/support/poller-harness";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

// The worker's poller on MariaDB 10.11's GET_LOCK user locks, against two servers the test starts
// itself (mariadb-install-db into a temporary directory, mariadbd on a free port): one with
// performance_schema and its GET_LOCK instrument on (every lock, holders and waiters), one
// without, read first by name (IS_USED_LOCK of the configured names) and then, once the test
// installs the metadata_lock_info plugin, through the plugin (every lock, holders only). Real
// mysql2 connections hold, queue for and release the locks. Each ending as the shared rule tells
// it from the holder's connection after the read (checkHolders): released (the connection lives
// on), session ended (KILL, or a client that disconnects: expired), taken over (the first waiter
// got it while the old holder lived on); the same with Java services' connections (MariaDB
// Connector/J, one JVM each, a crash SIGKILLed). Then a user whose rights are revoked mid-run (the
// locks it can no longer read go stale, a line names the setting), and a server that stops
// answering and then goes away (stale with their holder kept, never free).

const databaseUrl = getTestDatabaseUrl();
const run = randomUUID().slice(0, 8);
let db: Db;
let withSchema: MariadbServer;
let withoutSchema: MariadbServer;
const connections: mysql.Connection[] = [];
const jdbcClients: JdbcGetLockClient[] = [];
const pollers: RunningPoller[] = [];
const logs: string[] = [];
const clusters = new Map<string, { cluster: ClusterConfig; clusterId: number }>();

/** The names server B's cluster configures (by name, the only ones read). */
const B_NAMES = { released: `b-released-${run}`, killed: `b-killed-${run}`, handed: `b-handed-${run}` };

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
const clusterOf = (name: string) => clusters.get(name)!;

/** A real client: a mysql2 connection as `user`; its connection id and the label Baton gives it (`app@localhost conn 12`). */
async function client(server: MariadbServer, user = "app", password = "app"): Promise<{ conn: mysql.Connection; id: number; label: string }> {
  const conn = await mysql.createConnection({ uri: server.urlOf(user, password) });
  // A connection the test kills (or whose server it stops) must not crash the run.
  conn.on("error", () => undefined);
  connections.push(conn);
  const [rows] = await conn.query("SELECT CONNECTION_ID() AS id, USER() AS user");
  const row = (rows as { id: number; user: string }[])[0]!;
  return { conn, id: Number(row.id), label: `${row.user} conn ${row.id}` };
}

/** A Java service's connection (MariaDB Connector/J in a JVM of its own) as `app`. */
async function jdbcClient(server: MariadbServer): Promise<JdbcGetLockClient> {
  const started = await startJdbcGetLockClient(server, "app", "app");
  jdbcClients.push(started);
  return started;
}

async function getLock(conn: mysql.Connection, name: string, timeoutSeconds = 60): Promise<number> {
  const [rows] = await conn.query("SELECT GET_LOCK(?, ?) AS got", [name, timeoutSeconds]);
  return Number((rows as { got: number }[])[0]!.got);
}

async function releaseLock(conn: mysql.Connection, name: string): Promise<number> {
  const [rows] = await conn.query("SELECT RELEASE_LOCK(?) AS released", [name]);
  return Number((rows as { released: number }[])[0]!.released);
}

/** Runs statements as root over the server's socket. */
async function asRoot(server: MariadbServer, ...statements: string[]): Promise<void> {
  const root = await server.connectAsRoot();
  try {
    for (const statement of statements) await root.query(statement);
  } finally {
    await root.end();
  }
}

async function killConnection(server: MariadbServer, id: number): Promise<void> {
  const root = await server.connectAsRoot();
  try {
    await root.query("KILL ?", [id]);
  } finally {
    await root.end();
  }
}

function entry(name: string, server: MariadbServer, user: string, password: string, names: unknown[]) {
  return {
    kind: "database",
    name,
    engine: "mariadb",
    url: server.urlOf(user, password),
    names,
    pollIntervalMs: 300,
    discoveryIntervalMs: 1_000,
    statementTimeoutMs: 1_000,
    connectTimeoutMs: 1_000,
  };
}

const USERS = [
  // The observer: performance_schema and PROCESS, as docs/kinds/database.md asks.
  "CREATE USER 'baton'@'%' IDENTIFIED BY 'observer'",
  "GRANT SELECT ON performance_schema.* TO 'baton'@'%'",
  "GRANT PROCESS ON *.* TO 'baton'@'%'",
  // An observer whose performance_schema grant the test revokes mid-run.
  "CREATE USER 'revoked'@'%' IDENTIFIED BY 'revoked'",
  "GRANT SELECT ON performance_schema.* TO 'revoked'@'%'",
  // The applications: GET_LOCK needs no grant.
  "CREATE USER 'app'@'%' IDENTIFIED BY 'app'",
  "CREATE USER 'norights'@'%' IDENTIFIED BY 'norights'",
];

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  withSchema = await startMariadbServer({ performanceSchema: true });
  withoutSchema = await startMariadbServer({ performanceSchema: false });
  await asRoot(withSchema, ...USERS);
  await asRoot(withoutSchema, ...USERS);
  const entries = [
    entry(`get-lock-ps-${run}`, withSchema, "baton", "observer", [{ name: `leader-${run}`, mustBeHeld: true }]),
    entry(`get-lock-revoked-${run}`, withSchema, "revoked", "revoked", [`kept-${run}`]),
    entry(`get-lock-b-${run}`, withoutSchema, "baton", "observer", Object.values(B_NAMES)),
  ];
  const parsed = loadConfig({ BATON_CLUSTERS: JSON.stringify(entries) }).clusters;
  for (const cluster of parsed) {
    const clusterId = await registerCluster(db, cluster);
    clusters.set(cluster.name, { cluster, clusterId });
    pollers.push(startPoller({ databaseUrl, cluster, clusterId, pollerId: cluster.name, logs }));
  }
}, 180_000);

afterAll(async () => {
  for (const poller of pollers) await poller.stop();
  for (const conn of connections) conn.destroy();
  for (const jdbc of jdbcClients) await jdbc.kill().catch(() => undefined);
  await db?.cluster.deleteMany({ where: { name: { in: [...clusters.keys()] } } });
  await withSchema?.dispose();
  await withoutSchema?.dispose();
  await db?.$disconnect();
}, 120_000);

describe("GET_LOCK through performance_schema (MariaDB with performance_schema on)", () => {
  const ps = () => clusterOf(`get-lock-ps-${run}`);
  const config = (overrides: Partial<DatabaseSourceConfig> = {}) => ({ ...(ps().cluster as DatabaseSourceConfig), ...overrides });

  it("the Clusters page's check says the mode; a name that must be held is watched while free", async () => {
    expect(await databaseKind.checkReachable(config(), 5_000)).toEqual({
      status: "ok",
      reason: "GET_LOCK read through performance_schema.metadata_locks: every lock, its holder and its waiters in order",
    });
    const free = await waitFor(
      () => lockRow(ps().clusterId, `leader-${run}`),
      (row) => row !== null,
      "the must-be-held name to be watched",
    );
    expect(free).toMatchObject({ holder: null, staleSince: null });
    expect(
      logs.some((line) =>
        line.endsWith(
          `database ${ps().cluster.name}: GET_LOCK read through performance_schema.metadata_locks: every lock, its holder and its waiters in order`,
        ),
      ),
    ).toBe(true);
  });

  it("a lock nobody configured, held with a queue of two: holder and waiters in order; RELEASE_LOCK hands it to the first waiter (TAKEN_OVER, as predicted)", async () => {
    const name = `ps-queue-${run}`;
    const a = await client(withSchema);
    const b = await client(withSchema);
    const c = await client(withSchema);
    expect(await getLock(a.conn, name)).toBe(1);
    const bWaits = getLock(b.conn, name);
    await waitFor(
      () => lockRow(ps().clusterId, name),
      (row) => waitersOf(row)?.length === 1,
      "b to wait",
    );
    const cWaits = getLock(c.conn, name);
    const held = await waitFor(
      () => lockRow(ps().clusterId, name),
      (row) => waitersOf(row)?.length === 2,
      "a to hold with two waiters",
    );
    expect(held).toMatchObject({ holder: a.label, expiresAt: null, staleSince: null });
    expect(held!.holderToken).toMatch(new RegExp(`^${a.id}@\\d{4}-`));
    expect(waitersOf(held)).toEqual([b.label, c.label]);
    // The store keeps the kind's details under `source`.
    expect(held!.details).toMatchObject({
      source: {
        lockFunction: "GET_LOCK",
        engine: "mariadb",
        name,
        readMode: "performance_schema",
        holderConnection: { connectionId: a.id, user: "app" },
        waiting: [{ connectionId: b.id, state: "User lock" }, { connectionId: c.id }],
      },
    });

    expect(await releaseLock(a.conn, name)).toBe(1);
    expect(await bWaits).toBe(1);
    const changes = await waitFor(
      () => changesOf(ps().clusterId, name),
      (rows) => rows.length > 0,
      "the hand-over to be recorded",
    );
    expect(changes).toEqual([
      { kind: "HOLDER_CHANGED", ending: "TAKEN_OVER", fromHolder: a.label, toHolder: b.label, predictedHolder: b.label, prediction: "CONFIRMED" },
    ]);
    expect(waitersOf(await lockRow(ps().clusterId, name))).toEqual([c.label]);
    await releaseLock(b.conn, name);
    expect(await cWaits).toBe(1);
    await releaseLock(c.conn, name);
  });

  it("the configured name released while its connection lives on: RELEASED", async () => {
    const key = `leader-${run}`;
    const d = await client(withSchema);
    await getLock(d.conn, key);
    await waitFor(
      () => lockRow(ps().clusterId, key),
      (row) => row?.holder === d.label,
      "d to hold the leader name",
    );
    await releaseLock(d.conn, key);
    const changes = await waitFor(
      () => changesOf(ps().clusterId, key),
      (rows) => rows.length > 0,
      "the release to be recorded",
    );
    expect(changes.map((r) => [r.kind, r.ending, r.fromHolder, r.toHolder])).toEqual([["HOLDER_LOST", "RELEASED", d.label, null]]);
  });

  it("a holder KILLed while another waits: the waiter takes it, the ending EXPIRED (session ended)", async () => {
    const name = `ps-killed-${run}`;
    const e = await client(withSchema);
    const f = await client(withSchema);
    await getLock(e.conn, name);
    const fWaits = getLock(f.conn, name);
    await waitFor(
      () => lockRow(ps().clusterId, name),
      (row) => row?.holder === e.label && waitersOf(row)?.length === 1,
      "e to hold with f waiting",
    );
    await killConnection(withSchema, e.id);
    expect(await fWaits).toBe(1);
    const changes = await waitFor(
      () => changesOf(ps().clusterId, name),
      (rows) => rows.length > 0,
      "the session's end to be recorded",
    );
    expect(changes.map((r) => [r.kind, r.ending, r.fromHolder, r.toHolder])).toEqual([["HOLDER_CHANGED", "EXPIRED", e.label, f.label]]);
    await releaseLock(f.conn, name);
  });

  it("a holder whose client disconnects without releasing: HOLDER_LOST, EXPIRED (session ended)", async () => {
    const name = `ps-gone-${run}`;
    const g = await client(withSchema);
    await getLock(g.conn, name);
    await waitFor(
      () => lockRow(ps().clusterId, name),
      (row) => row?.holder === g.label,
      "g to hold",
    );
    await g.conn.end();
    const changes = await waitFor(
      () => changesOf(ps().clusterId, name),
      (rows) => rows.length > 0,
      "the session's end to be recorded",
    );
    expect(changes.map((r) => [r.kind, r.ending, r.fromHolder, r.toHolder])).toEqual([["HOLDER_LOST", "EXPIRED", g.label, null]]);
  });

  it("a user without rights: the check degrades naming the setting and the GRANT (down where it cannot log in); what it reads by name, and what it cannot see it does not call free", async () => {
    const url = withSchema.urlOf("norights", "norights");
    const name = `ps-unseen-${run}`;
    const kept = `norights-kept-${run}`;
    const limited = await databaseKind.checkReachable(config({ url, names: [{ name: kept, mustBeHeld: false }] }), 5_000);
    expect(limited.status).toBe("degraded");
    expect(limited.reason).toContain(
      `user norights@% (clusters "${ps().cluster.name}" url) cannot read performance_schema (GRANT SELECT ON performance_schema.* TO 'norights'@'%')`,
    );
    expect(limited.reason).toContain("only the 1 configured name is read (INSTALL SONAME 'metadata_lock_info' to discover every lock)");
    expect(limited.reason).toContain("lacks PROCESS");
    // A user the server refuses altogether: down, naming the url.
    const refused = await databaseKind.checkReachable(config({ url: withSchema.urlOf("norights", "wrong") }), 5_000);
    expect(refused.status).toBe("down");
    expect(refused.reason).toMatch(
      new RegExp(
        `^MariaDB 127\\.0\\.0\\.1:${withSchema.port} \\(clusters "${ps().cluster.name}" url\\): authentication failed \\(the url's user and password\\): Access denied`,
      ),
    );
    const h = await client(withSchema);
    await getLock(h.conn, kept);
    await getLock(h.conn, name);
    const lines: string[] = [];
    const source = createGetLockHoldSource(
      { ...config({ url, names: [{ name: kept, mustBeHeld: false }] }), engine: "mariadb" },
      { log: (line) => lines.push(line) },
    );
    try {
      const found = await source.discover();
      expect(found.keys.map((ref) => ref.key)).toEqual([kept]);
      const read = await source.observe([...found.keys, { key: name, pattern: "*" }]);
      // PROCESSLIST hides other users' connections from it: the holder is its connection id.
      expect(read.observations).toMatchObject([{ resourceKey: kept, holder: `conn ${h.id}`, details: { readMode: "names" } }]);
      expect(read.errors).toEqual([{ key: name, message: expect.stringContaining("not read: it is not in names") }]);
      expect(lines.filter((line) => line.includes("cannot read performance_schema"))).toHaveLength(1);
    } finally {
      await source.close();
      await releaseLock(h.conn, kept);
      await releaseLock(h.conn, name);
    }
  });

  it("an observer whose performance_schema grant is revoked mid-run: a lock only performance_schema showed goes stale with its holder (never free), a line names the setting; the configured name is still read", async () => {
    const revoked = clusterOf(`get-lock-revoked-${run}`);
    const name = `ps-revoked-${run}`;
    const k = await client(withSchema);
    await getLock(k.conn, name);
    await waitFor(
      () => lockRow(revoked.clusterId, name),
      (row) => row?.holder === k.label,
      "k to be seen through performance_schema",
    );
    await asRoot(withSchema, "REVOKE SELECT ON performance_schema.* FROM 'revoked'@'%'");
    const stale = await waitFor(
      () => lockRow(revoked.clusterId, name),
      (row) => row?.staleSince !== null,
      "the lock to go stale",
    );
    expect(stale!.holder).toBe(k.label);
    // The next probe says why, naming the setting and the GRANT.
    await waitFor(
      async () => logs,
      (lines) =>
        lines.some((line) =>
          line.includes(
            `user revoked@% (clusters "${revoked.cluster.name}" url) cannot read performance_schema (GRANT SELECT ON performance_schema.* TO 'revoked'@'%')`,
          ),
        ),
      "the mode's line to name the setting",
    );
    expect((await lockRow(revoked.clusterId, name))?.staleSince).not.toBeNull();
    // By name it still reads what it was told to watch.
    await getLock(k.conn, `kept-${run}`);
    await waitFor(
      () => lockRow(revoked.clusterId, `kept-${run}`),
      (row) => row?.holder === `conn ${k.id}` && row.staleSince === null,
      "the configured name to be read by name",
    );
    expect(await changesOf(revoked.clusterId, name)).toEqual([]);
    await releaseLock(k.conn, `kept-${run}`);
    await releaseLock(k.conn, name);
  });
});

describe("GET_LOCK taken by Java services through MariaDB Connector/J (performance_schema on)", () => {
  const ps = () => clusterOf(`get-lock-ps-${run}`);

  it("a JDBC holder with a JDBC client queued: both named by their connections; the release hands it to the waiter (TAKEN_OVER, as predicted), whose release frees it (RELEASED)", async () => {
    const name = `jdbc-queue-${run}`;
    const holder = await jdbcClient(withSchema);
    const waiter = await jdbcClient(withSchema);
    expect(await holder.lock(name, 60)).toBe(true);
    const granted = waiter.lock(name, 60);
    const held = await waitFor(
      () => lockRow(ps().clusterId, name),
      (row) => row?.holder === holder.label && waitersOf(row)?.length === 1,
      "the JDBC holder to hold with the JDBC client queued",
    );
    expect(held!.holderToken).toMatch(new RegExp(`^${holder.connectionId}@\\d{4}-`));
    expect(waitersOf(held)).toEqual([waiter.label]);
    expect(held!.details).toMatchObject({
      source: { lockFunction: "GET_LOCK", readMode: "performance_schema", holderConnection: { connectionId: holder.connectionId } },
    });

    expect(await holder.release(name)).toBe(1);
    expect(await granted).toBe(true);
    await waitFor(
      () => changesOf(ps().clusterId, name),
      (rows) => rows.length > 0,
      "the hand-over to be recorded",
    );
    expect(await waiter.release(name)).toBe(1);
    const changes = await waitFor(
      () => changesOf(ps().clusterId, name),
      (rows) => rows.length > 1,
      "the last release to be recorded",
    );
    expect(changes).toEqual([
      {
        kind: "HOLDER_CHANGED",
        ending: "TAKEN_OVER",
        fromHolder: holder.label,
        toHolder: waiter.label,
        predictedHolder: waiter.label,
        prediction: "CONFIRMED",
      },
      expect.objectContaining({ kind: "HOLDER_LOST", ending: "RELEASED", fromHolder: waiter.label, toHolder: null }),
    ]);
  });

  it("a JDBC holder SIGKILLed (the service crashed): the server ends its connection, HOLDER_LOST, EXPIRED (session ended)", async () => {
    const name = `jdbc-crash-${run}`;
    const holder = await jdbcClient(withSchema);
    expect(await holder.lock(name, 60)).toBe(true);
    await waitFor(
      () => lockRow(ps().clusterId, name),
      (row) => row?.holder === holder.label,
      "the JDBC holder to be seen",
    );
    await holder.kill();
    const changes = await waitFor(
      () => changesOf(ps().clusterId, name),
      (rows) => rows.length > 0,
      "the crash to be recorded",
    );
    expect(changes.map((r) => [r.kind, r.ending, r.fromHolder, r.toHolder])).toEqual([["HOLDER_LOST", "EXPIRED", holder.label, null]]);
  });
});

describe("GET_LOCK without performance_schema (MariaDB with it off): by name, then through the plugin", () => {
  const b = () => clusterOf(`get-lock-b-${run}`);
  const config = () => b().cluster as DatabaseSourceConfig;

  it("by name: the check says why; RELEASED, KILLed (EXPIRED), handed to a waiter Baton cannot see (TAKEN_OVER, not predicted); a name nobody configured is not seen", async () => {
    expect(await databaseKind.checkReachable(config(), 5_000)).toEqual({
      status: "degraded",
      reason:
        "GET_LOCK read by name (IS_USED_LOCK), no waiters: performance_schema is off (it needs a restart with --performance-schema=ON); metadata_lock_info plugin not installed: only the 3 configured names are read (INSTALL SONAME 'metadata_lock_info' to discover every lock)",
    });
    const a = await client(withoutSchema);
    const w = await client(withoutSchema);
    await getLock(a.conn, B_NAMES.released);
    await getLock(a.conn, B_NAMES.killed);
    await getLock(a.conn, B_NAMES.handed);
    await getLock(a.conn, `b-unconfigured-${run}`);
    const wWaits = getLock(w.conn, B_NAMES.handed);
    const held = await waitFor(
      () => lockRow(b().clusterId, B_NAMES.handed),
      (row) => row?.holder === a.label,
      "a to be seen holding by name",
    );
    // Waiters are not seen by name.
    expect(waitersOf(held)).toEqual([]);
    expect(held!.details).toMatchObject({ source: { readMode: "names", holderConnection: { connectionId: a.id, user: "app", host: "localhost" } } });

    await releaseLock(a.conn, B_NAMES.released);
    expect(
      (
        await waitFor(
          () => changesOf(b().clusterId, B_NAMES.released),
          (rows) => rows.length > 0,
          "the release",
        )
      ).map((r) => [r.kind, r.ending]),
    ).toEqual([["HOLDER_LOST", "RELEASED"]]);
    await releaseLock(a.conn, B_NAMES.handed);
    expect(await wWaits).toBe(1);
    expect(
      await waitFor(
        () => changesOf(b().clusterId, B_NAMES.handed),
        (rows) => rows.length > 0,
        "the hand-over",
      ),
    ).toEqual([{ kind: "HOLDER_CHANGED", ending: "TAKEN_OVER", fromHolder: a.label, toHolder: w.label, predictedHolder: null, prediction: "NOT_PREDICTED" }]);
    await killConnection(withoutSchema, a.id);
    expect(
      (
        await waitFor(
          () => changesOf(b().clusterId, B_NAMES.killed),
          (rows) => rows.length > 0,
          "the session's end",
        )
      ).map((r) => [r.kind, r.ending]),
    ).toEqual([["HOLDER_LOST", "EXPIRED"]]);
    expect(await lockRow(b().clusterId, `b-unconfigured-${run}`)).toBeNull();
    await releaseLock(w.conn, B_NAMES.handed);
  });

  it("through the metadata_lock_info plugin once installed: every lock and its holder; RELEASED, KILLed (EXPIRED), taken over (not predicted)", async () => {
    await asRoot(withoutSchema, "INSTALL SONAME 'metadata_lock_info'");
    const reason =
      "GET_LOCK read through the metadata_lock_info plugin: every lock and its holder, no waiters (performance_schema is off (it needs a restart with --performance-schema=ON))";
    await waitFor(
      async () => logs,
      (lines) => lines.some((line) => line.endsWith(`database ${b().cluster.name}: ${reason}`)),
      "the next discovery to read through the plugin",
    );
    expect(await databaseKind.checkReachable(config(), 5_000)).toEqual({ status: "degraded", reason });
    const names = { released: `p-released-${run}`, killed: `p-killed-${run}`, handed: `p-handed-${run}` };
    const a = await client(withoutSchema);
    const w = await client(withoutSchema);
    for (const name of Object.values(names)) await getLock(a.conn, name);
    const wWaits = getLock(w.conn, names.handed);
    const held = await waitFor(
      () => lockRow(b().clusterId, names.handed),
      (row) => row?.holder === a.label,
      "a lock nobody configured to be seen through the plugin",
    );
    expect(held!.details).toMatchObject({ source: { readMode: "plugin", lockType: "MDL_SHARED_NO_WRITE", holderConnection: { connectionId: a.id } } });

    await releaseLock(a.conn, names.released);
    expect(
      (
        await waitFor(
          () => changesOf(b().clusterId, names.released),
          (rows) => rows.length > 0,
          "the release",
        )
      ).map((r) => [r.kind, r.ending]),
    ).toEqual([["HOLDER_LOST", "RELEASED"]]);
    await releaseLock(a.conn, names.handed);
    expect(await wWaits).toBe(1);
    expect(
      await waitFor(
        () => changesOf(b().clusterId, names.handed),
        (rows) => rows.length > 0,
        "the hand-over",
      ),
    ).toEqual([{ kind: "HOLDER_CHANGED", ending: "TAKEN_OVER", fromHolder: a.label, toHolder: w.label, predictedHolder: null, prediction: "NOT_PREDICTED" }]);
    await killConnection(withoutSchema, a.id);
    expect(
      (
        await waitFor(
          () => changesOf(b().clusterId, names.killed),
          (rows) => rows.length > 0,
          "the session's end",
        )
      ).map((r) => [r.kind, r.ending]),
    ).toEqual([["HOLDER_LOST", "EXPIRED"]]);
    await releaseLock(w.conn, names.handed);
  });

  it("a server that stops answering mid-run, then goes away: its locks go stale with their holder kept (never free), one line names the setting", async () => {
    const name = `b-outage-${run}`;
    const k = await client(withoutSchema);
    await getLock(k.conn, name);
    await waitFor(
      () => lockRow(b().clusterId, name),
      (row) => row?.holder === k.label,
      "k to hold",
    );
    withoutSchema.pause();
    const stale = await waitFor(
      () => lockRow(b().clusterId, name),
      (row) => row?.staleSince !== null,
      "the lock to go stale while the server is paused",
    );
    expect(stale!.holder).toBe(k.label);
    const outageLines = () =>
      logs.filter(
        (line) =>
          line.includes(`database ${b().cluster.name}: MariaDB 127.0.0.1:${withoutSchema.port} (clusters "${b().cluster.name}" url)`) && line.includes("stale"),
      );
    expect(outageLines()).toHaveLength(1);
    expect(outageLines()[0]).toMatch(/its locks are stale until a read answers$/);
    withoutSchema.resume();
    await waitFor(
      () => lockRow(b().clusterId, name),
      (row) => row?.staleSince === null && row?.holder === k.label,
      "the lock to be read again",
    );
    expect(await changesOf(b().clusterId, name)).toEqual([]);

    await withoutSchema.stop();
    const gone = await waitFor(
      () => lockRow(b().clusterId, name),
      (row) => row?.staleSince !== null,
      "the lock to go stale once the server is gone",
    );
    expect(gone!.holder).toBe(k.label);
    expect(await changesOf(b().clusterId, name)).toEqual([]);
    const down = await databaseKind.checkReachable(config(), 2_000);
    expect(down).toEqual({
      status: "down",
      reason: `MariaDB 127.0.0.1:${withoutSchema.port} (clusters "${b().cluster.name}" url): connection refused (is the url's host and port right, and the server running?)`,
    });
  });
});
