import { describe, expect, it } from "vitest";

import { chooseGetLockMode, type GetLockProbes } from "@/lib/sources/database/get-lock-mode";
import { flavorOf, statementTimeoutSql } from "@/lib/sources/database/mysql-client";
import { describeMysqlError } from "@/lib/sources/database/mysql-client";

const SETTING = 'clusters "orders-db" url';
const probes = (fields: Partial<GetLockProbes>): GetLockProbes => ({
  flavor: "mariadb",
  version: "10.11.19-MariaDB-0+deb12u1",
  user: "baton@%",
  performanceSchema: "readable",
  hasProcess: true,
  ...fields,
});
const choose = (fields: Partial<GetLockProbes>, namesCount = 2) => chooseGetLockMode(probes(fields), { namesCount, setting: SETTING });

describe("the mode a MariaDB/MySQL server's GET_LOCK locks are read in", () => {
  it("performance_schema readable with its instrument on: every lock, holders and waiters; ok", () => {
    expect(choose({})).toEqual({
      mode: "performance_schema",
      canSeeConnections: true,
      isDegraded: false,
      line: "GET_LOCK read through performance_schema.metadata_locks: every lock, its holder and its waiters in order",
    });
    // performance_schema.threads shows every connection: PROCESS is not needed there.
    expect(choose({ hasProcess: false })).toMatchObject({ mode: "performance_schema", canSeeConnections: true, isDegraded: false });
  });

  it("the plugin where performance_schema is off, its instrument off, or refused: holders, no waiters, and why", () => {
    expect(choose({ performanceSchema: "off", plugin: "readable" })).toEqual({
      mode: "plugin",
      canSeeConnections: true,
      isDegraded: true,
      line: "GET_LOCK read through the metadata_lock_info plugin: every lock and its holder, no waiters (performance_schema is off (it needs a restart with --performance-schema=ON))",
    });
    expect(choose({ performanceSchema: "instrument-off", plugin: "readable" }).line).toContain(
      "UPDATE performance_schema.setup_instruments SET ENABLED='YES', TIMED='YES' WHERE NAME='wait/lock/metadata/sql/mdl'",
    );
    expect(
      choose({
        performanceSchema: { denied: "SELECT command denied to user 'baton'@'localhost' for table `performance_schema`.`setup_instruments`" },
        plugin: "readable",
      }).line,
    ).toContain(`user baton@% (${SETTING}) cannot read performance_schema (GRANT SELECT ON performance_schema.* TO 'baton'@'%'): SELECT command denied`);
  });

  it("neither: the configured names by IS_USED_LOCK, saying what to install", () => {
    expect(choose({ performanceSchema: "off", plugin: "missing" })).toEqual({
      mode: "names",
      canSeeConnections: true,
      isDegraded: true,
      line: "GET_LOCK read by name (IS_USED_LOCK), no waiters: performance_schema is off (it needs a restart with --performance-schema=ON); metadata_lock_info plugin not installed: only the 2 configured names are read (INSTALL SONAME 'metadata_lock_info' to discover every lock)",
    });
    expect(choose({ performanceSchema: "off", plugin: "missing" }, 1).line).toContain("only the 1 configured name is read");
    expect(choose({ performanceSchema: "off", plugin: "missing" }, 0).line).toContain(
      "metadata_lock_info plugin not installed: no lock is read: names lists none (INSTALL SONAME",
    );
    // MySQL has no such plugin to install.
    expect(choose({ flavor: "mysql", version: "8.4.3", performanceSchema: "off", plugin: "missing" }).line).not.toContain("INSTALL SONAME");
  });

  it("without PROCESS outside performance_schema: holders by connection id, and the GRANT naming the setting", () => {
    const mode = choose({ performanceSchema: "off", plugin: "readable", hasProcess: false });
    expect(mode).toMatchObject({ mode: "plugin", canSeeConnections: false, isDegraded: true });
    expect(mode.line).toContain(`; user baton@% (${SETTING}) lacks PROCESS: other users' connections are hidden`);
    expect(mode.line).toContain("(GRANT PROCESS ON *.* TO 'baton'@'%')");
  });
});

describe("the MariaDB/MySQL connection", () => {
  it("bounds every statement by the server's own variable: MariaDB's max_statement_time in seconds, MySQL's max_execution_time in ms", () => {
    expect(flavorOf("10.11.19-MariaDB-0+deb12u1")).toBe("mariadb");
    expect(flavorOf("8.4.3")).toBe("mysql");
    expect(statementTimeoutSql("mariadb", 2_000)).toBe("SET SESSION max_statement_time = 2");
    expect(statementTimeoutSql("mariadb", 1_500)).toBe("SET SESSION max_statement_time = 1.5");
    expect(statementTimeoutSql("mysql", 2_000)).toBe("SET SESSION max_execution_time = 2000");
  });

  it("says a failed read in one line naming the url's setting, never its password", () => {
    const config = { name: "orders-db", url: "mysql://baton:s3cret@db.internal:3307/", engine: "mariadb" };
    const refused = Object.assign(new Error("connect ECONNREFUSED 10.0.0.9:3307"), { code: "ECONNREFUSED", fatal: true });
    expect(describeMysqlError(refused, config)).toBe(
      'MariaDB db.internal:3307 (clusters "orders-db" url): connection refused (is the url\'s host and port right, and the server running?)',
    );
    const denied = Object.assign(new Error("Access denied for user 'baton'@'10.0.0.7' (using password: YES)"), {
      errno: 1045,
      sqlState: "28000",
      code: "ER_ACCESS_DENIED_ERROR",
    });
    expect(describeMysqlError(denied, { ...config, engine: "mysql" })).toMatch(/^MySQL db\.internal:3307 \(clusters "orders-db" url\): authentication failed/);
    const timedOut = Object.assign(new Error("Query execution was interrupted (max_statement_time exceeded)"), { errno: 1969, sqlState: "70100" });
    expect(describeMysqlError(timedOut, config)).toContain("ran past statementTimeoutMs");
    for (const error of [refused, denied, timedOut]) expect(describeMysqlError(error, config)).not.toContain("s3cret");
  });
});
