import { describe, expect, it } from "vitest";

import { advisoryLockKeyOf, keyFromOids, nameKeys, parseAdvisoryKey, pgBossKeyOf, withAdvisoryLockKeyOf } from "@/lib/sources/database/advisory-keys";

describe("advisory lock keys", () => {
  it.each([
    ["42", { key: "42", form: "bigint" }],
    ["-5", { key: "-5", form: "bigint" }],
    [" 7, 12 ", { key: "7,12", form: "int4-pair" }],
    ["9223372036854775807", { key: "9223372036854775807", form: "bigint" }],
    ["-2147483648,2147483647", { key: "-2147483648,2147483647", form: "int4-pair" }],
  ])("reads %j", (text, expected) => {
    expect(parseAdvisoryKey(text)).toEqual(expected);
  });

  it.each([
    ["", 'must be one integer ("42") or two ("7,12")'],
    ["daily", 'must be one integer ("42") or two ("7,12")'],
    ["1,2,3", 'must be one integer ("42") or two ("7,12")'],
    ["9223372036854775808", "must fit a bigint (-2^63 to 2^63-1)"],
    ["2147483648,1", "each of the two keys must fit an int4 (-2^31 to 2^31-1)"],
  ])("refuses %j", (text, reason) => {
    expect(parseAdvisoryKey(text)).toBe(reason);
  });

  // The oids as PostgreSQL 15 showed them for these keys (pg_locks read by hand, 2026-12-06).
  it("decodes pg_locks' oids as its SQL does: -5 from classid 4294967295, objid 4294967291; two int4 with a negative first", () => {
    expect(keyFromOids(4294967295, 4294967291, 1)).toBe("-5");
    expect(keyFromOids(0, 42, 1)).toBe("42");
    expect(keyFromOids(1, 0, 1)).toBe("4294967296");
    expect(keyFromOids(2356060086, 614392357, 2)).toBe("-1938907210,614392357");
  });

  it("hashes npm advisory-lock's names as its strToKey does ('nightly-export' seen on a real server as -1938907210,614392357)", async () => {
    expect(advisoryLockKeyOf("nightly-export")).toBe("-1938907210,614392357");
    const { strToKey } = (await import("advisory-lock")) as unknown as { strToKey(name: string): [number, number] };
    for (const name of ["my-mutex", "daily-report", "ü-unicode"]) expect(advisoryLockKeyOf(name)).toBe(strToKey(name).join(","));
  });

  it("hashes pg-boss's schema per database as its SQL does (sha224, first 64 bits, signed)", () => {
    // ('x' || encode(sha224('<database>.pgboss.<schema>'::bytea), 'hex'))::bit(64)::bigint, as PostgreSQL 15 computed it here.
    expect(pgBossKeyOf("jobs", "pgboss")).toBe("-8062992576447162106");
    expect(pgBossKeyOf("billing", "jobs_schema")).toBe("-93625610349311596");
    expect(pgBossKeyOf("jobs", "pgboss")).not.toBe(pgBossKeyOf("billing", "pgboss"));
  });

  it("hashes Rails' with_advisory_lock names as it does: Zlib.crc32 of the name and the prefix, 31 bits each", () => {
    // Zlib.crc32 (Ruby) and zlib.crc32 (Python) agree: 'daily-report' 1055293738, 'report:daily' 4239930106.
    expect(withAdvisoryLockKeyOf("daily-report", 0)).toBe("1055293738,0");
    expect(withAdvisoryLockKeyOf("report:daily", 0)).toBe(`${4239930106 & 0x7fffffff},0`);
    expect(withAdvisoryLockKeyOf("report:daily", 0)).toBe("2092446458,0");
    expect(withAdvisoryLockKeyOf("daily-report", 12)).toBe("1055293738,12");
  });

  it("names keys per database: configured keys, library hashes; an unparsable key names nothing", () => {
    const names = nameKeys(
      [
        { key: "42", name: "daily-report", mustBeHeld: true },
        { key: "7, 12", name: "pair", mustBeHeld: false },
        { library: "advisory-lock", name: "my-mutex", mustBeHeld: false },
        { library: "pg-boss", schema: "pgboss", name: "pg-boss maintenance", mustBeHeld: false },
      ],
      "jobs",
    );
    expect(names.get("42")).toEqual({ name: "daily-report", library: null, mustBeHeld: true });
    expect(names.get("7,12")).toEqual({ name: "pair", library: null, mustBeHeld: false });
    expect(names.get(advisoryLockKeyOf("my-mutex"))).toEqual({ name: "my-mutex", library: "advisory-lock", mustBeHeld: false });
    expect(names.get(pgBossKeyOf("jobs", "pgboss"))?.library).toBe("pg-boss");
    expect(names.size).toBe(4);
  });
});
