import { describe, expect, it } from "vitest";

import { ConfigError } from "@/lib/config-files";
import { describeServer, parseDatabaseClusterConfig } from "@/lib/sources/database/database-config";

const valid = { kind: "database", name: "jobs-db", url: "postgres://observer@db.internal:5432/jobs" };

function errorOf(input: unknown): string {
  try {
    parseDatabaseClusterConfig(input, "BATON_CLUSTERS[1]");
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a configuration error");
}

describe("parseDatabaseClusterConfig", () => {
  it("fills the defaults", () => {
    expect(parseDatabaseClusterConfig(valid)).toEqual({
      ...valid,
      engine: "postgresql",
      locks: [],
      idleInTransactionMaxMs: 60_000,
      discoveryIntervalMs: 30_000,
      statementTimeoutMs: 2_000,
      connectTimeoutMs: 5_000,
    });
  });

  it("reads keyed locks and the libraries' names", () => {
    const config = parseDatabaseClusterConfig({
      ...valid,
      databases: ["jobs"],
      locks: [
        { key: "42", name: "daily-report", mustBeHeld: true },
        { key: "7,12", name: "pair" },
        { library: "advisory-lock", name: "my-mutex" },
        { library: "pg-boss" },
        { library: "with_advisory_lock", name: "report:daily", prefix: 7 },
      ],
    });
    expect(config.locks).toEqual([
      { key: "42", name: "daily-report", mustBeHeld: true },
      { key: "7,12", name: "pair", mustBeHeld: false },
      { library: "advisory-lock", name: "my-mutex", mustBeHeld: false },
      { library: "pg-boss", schema: "pgboss", name: "pg-boss maintenance", mustBeHeld: false },
      { library: "with_advisory_lock", name: "report:daily", prefix: 7, mustBeHeld: false },
    ]);
  });

  it.each([
    [{ ...valid, url: "mysql://db/jobs" }, /^Invalid configuration: BATON_CLUSTERS\[1\]\.url must be a postgres:\/\/ or postgresql:\/\/ URL/],
    [{ ...valid, engine: "oracle" }, /^Invalid configuration: BATON_CLUSTERS\[1\]\.engine must be "postgresql", "mariadb" or "mysql" \(got "oracle"\)$/],
    [{ ...valid, names: ["job:daily"] }, /^Invalid configuration: BATON_CLUSTERS\[1\]\.names lists GET_LOCK names, which only engine "mariadb" or "mysql" has/],
    [
      { ...valid, locks: [{ key: "daily", name: "x" }] },
      /^Invalid configuration: BATON_CLUSTERS\[1\]\.locks\[0\]\.key must be one integer \("42"\) or two \("7,12"\) \(got "daily"\)$/,
    ],
    [{ ...valid, locks: [{ key: "1,2147483648", name: "x" }] }, /\.locks\[0\]\.key each of the two keys must fit an int4/],
    [{ ...valid, locks: [{ key: "42" }] }, /^Invalid configuration: BATON_CLUSTERS\[1\]\.locks\[0\]\.name /],
    [
      { ...valid, locks: [{ library: "redlock", name: "x" }] },
      /^Invalid configuration: BATON_CLUSTERS\[1\]\.locks\[0\]\.library must be "advisory-lock", "pg-boss" or "with_advisory_lock" \(got "redlock"\)$/,
    ],
    [{ ...valid, locks: [{ library: "advisory-lock", name: "x", key: "4" }] }, /^Invalid configuration: BATON_CLUSTERS\[1\]\.locks\[0\] .*unknown key "key"/],
    [
      {
        ...valid,
        locks: [
          { key: "42", name: "a" },
          { key: "42", name: "b" },
        ],
      },
      /^Invalid configuration: BATON_CLUSTERS\[1\]\.locks\[1\] names the same lock as locks\[0\]/,
    ],
    [{ ...valid, databases: [] }, /\.databases must name at least one database/],
    [{ ...valid, statementTimeoutMs: 10 }, /\.statementTimeoutMs /],
    [{ ...valid, extra: 1 }, /unknown key "extra"/],
  ])("refuses %j in one line naming the field", (input, message) => {
    const error = errorOf(input);
    expect(error).toMatch(message);
    expect(error).not.toContain("\n");
  });

  it("never repeats the url's password in an error", () => {
    const error = errorOf({ ...valid, url: "postgres://observer:s3cret@db.internal:bad/jobs" });
    expect(error).toBe(
      'Invalid configuration: BATON_CLUSTERS[1].url must be a postgres:// or postgresql:// URL (got "postgres://observer:***@db.internal:bad/jobs")',
    );
  });

  it("says where the server is without its credentials", () => {
    expect(describeServer("postgres://u:secret@db.internal/jobs")).toBe("db.internal:5432/jobs");
    expect(describeServer("mysql://u:secret@db.internal/")).toBe("db.internal:3306");
  });
});

describe("parseDatabaseClusterConfig for GET_LOCK (engine mariadb or mysql)", () => {
  const mariadb = { kind: "database", name: "orders-db", engine: "mariadb", url: "mysql://baton:secret@db.internal:3306/" };

  it("reads the names, as strings or with mustBeHeld", () => {
    const config = parseDatabaseClusterConfig({ ...mariadb, names: ["job:daily", { name: "leader", mustBeHeld: true }] });
    expect(config).toMatchObject({ engine: "mariadb", url: mariadb.url, locks: [] });
    expect(config.names).toEqual([
      { name: "job:daily", mustBeHeld: false },
      { name: "leader", mustBeHeld: true },
    ]);
    expect(parseDatabaseClusterConfig({ ...mariadb, engine: "mysql" }).names).toBeUndefined();
  });

  it.each([
    [
      { ...mariadb, url: "postgres://baton@db.internal/jobs" },
      /^Invalid configuration: BATON_CLUSTERS\[1\]\.url must be a mysql:\/\/ URL \(mysql:\/\/user:password@host:3306\/\) for engine "mariadb" \(got "postgres:/,
    ],
    [{ ...mariadb, engine: "mysql", url: "mariadb://db/" }, /\.url must be a mysql:\/\/ URL .* for engine "mysql"/],
    [{ ...mariadb, url: "mysql://baton:secret@db.internal:3306/", engine: "postgresql" }, /\.url must be a postgres:\/\/ or postgresql:\/\/ URL/],
    [
      { ...mariadb, locks: [{ key: "42", name: "x" }] },
      /^Invalid configuration: BATON_CLUSTERS\[1\]\.locks names advisory-lock keys, which only engine "postgresql" has \(engine is "mariadb": list GET_LOCK names in names\)/,
    ],
    [
      { ...mariadb, tables: [{ format: "shedlock" }] },
      /^Invalid configuration: BATON_CLUSTERS\[1\]\.tables lists lock tables, which only engine "postgresql" has/,
    ],
    [
      { ...mariadb, databases: ["jobs"] },
      /^Invalid configuration: BATON_CLUSTERS\[1\]\.databases filters advisory locks by database, which only engine "postgresql" has/,
    ],
    [{ ...mariadb, names: [""] }, /^Invalid configuration: BATON_CLUSTERS\[1\]\.names\[0\]\.name must not be empty/],
    [{ ...mariadb, names: ["a", "b", "a"] }, /^Invalid configuration: BATON_CLUSTERS\[1\]\.names\[2\] names the same lock as names\[0\]/],
    [{ ...mariadb, names: [{ name: "a", ttlMs: 5 }] }, /\.names\[0\] .*unknown key "ttlMs"/],
    [{ ...mariadb, names: ["x".repeat(193)] }, /\.names\[0\] names a lock longer than 192 characters \(mariadb's limit for GET_LOCK names\) \(got "x{20}/],
    [
      { ...mariadb, engine: "mysql", names: [{ name: "x".repeat(65) }] },
      /\.names\[0\] names a lock longer than 64 characters \(mysql's limit for GET_LOCK names\)/,
    ],
  ])("refuses %j in one line naming the field", (input, message) => {
    const error = errorOf(input);
    expect(error).toMatch(message);
    expect(error).not.toContain("\n");
    expect(error).not.toContain("secret");
  });
});
