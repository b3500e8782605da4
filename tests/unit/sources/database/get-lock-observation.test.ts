import { describe, expect, it } from "vitest";

import { databaseDescription } from "@/lib/sources/database/database-description";
import {
  type GetLockName,
  type GetLockReadContext,
  groupGetLockRows,
  literalPattern,
  parseGetLockToken,
  toFreeGetLockObservation,
  toGetLockObservation,
} from "@/lib/sources/database/get-lock-observation";
import { type GetLockRow, locksQueryOf, namesLocksValues, toGetLockRow } from "@/lib/sources/database/get-lock-rows";

const T0 = Date.parse("2026-12-07T02:00:00.000Z");
const STARTED = "2026-12-06T23:00:00.000Z";
const context: GetLockReadContext = { engine: "mariadb", mode: "performance_schema", serverStartedAt: STARTED, observedMs: T0 };

function row(fields: Partial<GetLockRow> & Pick<GetLockRow, "name" | "connectionId">): GetLockRow {
  return {
    isGranted: true,
    lockType: "SHARED_NO_WRITE",
    user: "app",
    host: "10.0.0.7",
    db: "orders",
    command: "Sleep",
    state: "",
    timeSeconds: 12,
    waitOrder: null,
    waitedMs: null,
    ...fields,
  };
}

const configured = new Map<string, GetLockName>([
  ["job:daily", { name: "job:daily", mustBeHeld: true }],
  [`report-${"r".repeat(90)}`, { name: `report-${"r".repeat(90)}`, mustBeHeld: false }],
]);

function observe(rows: GetLockRow[], readContext = context) {
  return [...groupGetLockRows(rows, configured).values()].map((group) => toGetLockObservation(group, readContext));
}

describe("the observation of a GET_LOCK lock", () => {
  it("a configured name held with two waiters: the holder's connection and token, no TTL, the waiters in the order they asked", () => {
    const [obs, ...rest] = observe([
      // Connection 31 asked first (its statement began earlier on the server's timer), though it is the newer connection.
      row({
        name: "job:daily",
        connectionId: 40,
        isGranted: false,
        waitOrder: 9_000_000_000_000_000_002n,
        timeSeconds: 3,
        command: "Query",
        state: "User lock",
      }),
      row({ name: "job:daily", connectionId: 12 }),
      row({
        name: "job:daily",
        connectionId: 31,
        isGranted: false,
        waitOrder: 9_000_000_000_000_000_001n,
        timeSeconds: 3,
        command: "Query",
        state: "User lock",
      }),
    ]);
    expect(rest).toEqual([]);
    expect(obs).toEqual({
      resourceKey: "job:daily",
      pattern: "job:daily",
      holder: "app@10.0.0.7 conn 12",
      holderToken: `12@${STARTED}`,
      expiresAt: null,
      ttlMs: null,
      waiters: ["app@10.0.0.7 conn 31", "app@10.0.0.7 conn 40"],
      observedAt: new Date(T0).toISOString(),
      isSplit: false,
      details: {
        lockFunction: "GET_LOCK",
        engine: "mariadb",
        name: "job:daily",
        readMode: "performance_schema",
        lockType: "SHARED_NO_WRITE",
        holderConnection: { connectionId: 12, user: "app", host: "10.0.0.7", db: "orders", command: "Sleep", state: "" },
        holderTimeSeconds: 12,
        waiting: [
          { connectionId: 31, user: "app", host: "10.0.0.7", db: "orders", command: "Query", state: "User lock" },
          { connectionId: 40, user: "app", host: "10.0.0.7", db: "orders", command: "Query", state: "User lock" },
        ],
      },
    });
    expect(parseGetLockToken(obs!.holderToken!)).toEqual({ connectionId: 12, serverStartedAt: STARTED });
  });

  it("waiters without the server's timer: the longest waiting first (MariaDB's milliseconds, else whole seconds), then the oldest connection", () => {
    const [obs] = observe([
      row({ name: "job:daily", connectionId: 5 }),
      // Asked 50 ms after connection 11, within the same second.
      row({ name: "job:daily", connectionId: 6, isGranted: false, timeSeconds: 4, waitedMs: 4_202.588 }),
      row({ name: "job:daily", connectionId: 11, isGranted: false, timeSeconds: 4, waitedMs: 4_253.853 }),
    ]);
    expect(obs!.waiters).toEqual(["app@10.0.0.7 conn 11", "app@10.0.0.7 conn 6"]);
    const [bySeconds] = observe([
      row({ name: "job:daily", connectionId: 5 }),
      row({ name: "job:daily", connectionId: 9, isGranted: false, timeSeconds: 2 }),
      row({ name: "job:daily", connectionId: 8, isGranted: false, timeSeconds: 2 }),
      row({ name: "job:daily", connectionId: 7, isGranted: false, timeSeconds: 4 }),
    ]);
    expect(bySeconds!.waiters).toEqual(["app@10.0.0.7 conn 7", "app@10.0.0.7 conn 8", "app@10.0.0.7 conn 9"]);
  });

  it("a name nobody configured: its own key under the unconfigured names' pattern; a connection the user cannot see is its id alone", () => {
    const [obs] = observe([row({ name: "cron*[x]", connectionId: 77, user: null, host: null, command: null, state: null, timeSeconds: null })]);
    expect(obs).toMatchObject({ resourceKey: "cron*[x]", pattern: "*", holder: "conn 77", holderToken: `77@${STARTED}` });
    expect(obs!.details).not.toHaveProperty("holderTimeSeconds");
    // A configured name with glob characters matches only itself.
    expect(literalPattern("cron*[x]")).toBe("cron\\*\\[x\\]");
  });

  it("the plugin's name cut to 64 characters is the one configured name it begins", () => {
    const long = `report-${"r".repeat(90)}`;
    const [obs] = observe([row({ name: long.slice(0, 64), connectionId: 3, lockType: "MDL_SHARED_NO_WRITE" })], { ...context, mode: "plugin" });
    expect(obs).toMatchObject({ resourceKey: long, pattern: literalPattern(long), details: { name: long, readMode: "plugin" } });
  });

  it("the same connection holding a name twice (GET_LOCK nests) is one holder; a restarted server's connection 12 is another token", () => {
    const [obs] = observe([row({ name: "job:daily", connectionId: 12 }), row({ name: "job:daily", connectionId: 12 })]);
    expect(obs!.holder).toBe("app@10.0.0.7 conn 12");
    const [after] = observe([row({ name: "job:daily", connectionId: 12 })], { ...context, serverStartedAt: "2026-12-07T01:59:00.000Z" });
    expect(after!.holderToken).not.toBe(obs!.holderToken);
  });

  it("a name the read answered for that nobody holds: free, with what it is", () => {
    expect(toFreeGetLockObservation({ key: "job:daily", pattern: "job:daily" }, { ...context, mode: "names" })).toMatchObject({
      holder: null,
      holderToken: null,
      waiters: [],
      expiresAt: null,
      details: { lockFunction: "GET_LOCK", name: "job:daily", readMode: "names" },
    });
  });
});

describe("a GET_LOCK row as the server answers it", () => {
  it("PROCESSLIST's host loses its port, performance_schema's is kept; ids and the timer read from text; a row without a connection is none", () => {
    expect(
      toGetLockRow({
        lock_name: "job:daily",
        lock_status: "GRANTED",
        lock_type: null,
        connection_id: "12",
        user: "app",
        host: "10.0.0.7:51234",
        host_has_port: 1,
        db: null,
        command: "Sleep",
        state: "",
        time_seconds: "4",
        wait_order: null,
      }),
    ).toEqual({
      name: "job:daily",
      isGranted: true,
      connectionId: 12,
      lockType: null,
      user: "app",
      host: "10.0.0.7",
      db: null,
      command: "Sleep",
      state: "",
      timeSeconds: 4,
      waitOrder: null,
      waitedMs: null,
    });
    expect(
      toGetLockRow({ lock_name: "j", lock_status: "PENDING", connection_id: 4, host: "::1", wait_order: "18446744073709551000", waited_ms: "4202.588" }),
    ).toMatchObject({ isGranted: false, host: "::1", waitOrder: 18_446_744_073_709_551_000n, waitedMs: 4_202.588 });
    expect(toGetLockRow({ lock_name: "j", lock_status: "GRANTED", connection_id: null })).toBeNull();
  });

  it("each mode's query: MariaDB's milliseconds only on MariaDB; by name, each configured name twice as values and nothing to read without names", () => {
    expect(locksQueryOf("performance_schema", [], "mariadb")?.sql).toContain("p.TIME_MS");
    expect(locksQueryOf("performance_schema", [], "mysql")?.sql).toContain("performance_schema.metadata_locks");
    expect(locksQueryOf("performance_schema", [], "mysql")?.sql).not.toContain("TIME_MS");
    expect(locksQueryOf("plugin", [], "mariadb")?.sql).toContain("METADATA_LOCK_INFO");
    const byName = locksQueryOf("names", ["a", "b'c"], "mariadb");
    expect(byName?.sql.match(/IS_USED_LOCK\(\?\)/g)).toHaveLength(2);
    expect(byName?.sql).not.toContain("b'c");
    expect(byName?.values).toEqual(namesLocksValues(["a", "b'c"]));
    expect(byName?.values).toEqual(["a", "a", "b'c", "b'c"]);
    expect(locksQueryOf("names", [], "mysql")).toBeNull();
  });
});

describe("the database kind's words for GET_LOCK", () => {
  it("no TTL: held until unlock or session end", () => {
    expect(databaseDescription.describeHoldTerm({ lockFunction: "GET_LOCK" })).toEqual({ term: "No TTL", source: "held until unlock or session end" });
  });

  it("next in line: the first waiter with performance_schema; not predicted where the queue is unseen", () => {
    expect(databaseDescription.predictNextHolder(["b conn 2"], { lockFunction: "GET_LOCK", readMode: "performance_schema" })).toEqual({
      holder: "b conn 2",
      reason: null,
      detail: null,
    });
    for (const readMode of ["plugin", "names"]) {
      expect(databaseDescription.predictNextHolder([], { lockFunction: "GET_LOCK", readMode })).toMatchObject({ holder: null, reason: "no-queue" });
    }
  });
});
