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
    [{ ...valid, engine: "mariadb" }, /^Invalid configuration: BATON_CLUSTERS\[1\]\.engine must be "postgresql" \(got "mariadb"\)$/],
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
  });
});
