import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";

// PostgreSQL advisory lock keys, and the names configured for them. Pure.
//
// pg_locks shows a key in two oid columns: one bigint key k (objsubid 1) as classid = the high
// 32 bits and objid = the low 32 bits; two int4 keys (a, b) (objsubid 2) as classid = a and
// objid = b, both as unsigned oids. The read's SQL turns both back into text ("-5", "7,12");
// this module works on that text.
//
// Libraries hash a name into a key:
// - npm advisory-lock 2.0.0 (src/index.ts, strToKey): sha256(name), bytes 0-3 and 4-7 each read
//   as a little-endian int32: two int4 keys, `pg_advisory_lock(k1, k2)` on a session of its own.
// - pg-boss 10 (src/plans.js, advisoryLock): `pg_advisory_xact_lock(('x' ||
//   encode(sha224((current_database() || '.pgboss.' || schema)::bytea), 'hex'))::bit(64)::bigint)`:
//   the first 8 bytes of sha224("<database>.pgboss.<schema>") as a big-endian signed bigint, held
//   for one transaction around its maintenance and migrations. Its key depends on the database.
// - Rails' with_advisory_lock (ClosureTree, core_advisory.rb and postgresql_advisory.rb):
//   `[Zlib.crc32(name), ENV["WITH_ADVISORY_LOCK_PREFIX"].to_i]`, each `& 0x7fffffff`: two int4
//   keys, taken with pg_try_advisory_lock in a loop (its contenders poll; they never queue).
// - graphile-worker 0.17.3 takes no advisory lock (its dist and SQL have none): it locks jobs and
//   queues with `locked_by` columns, which a read of pg_locks cannot see.

/** One key as pg_locks' SQL returns it: "42" (one bigint) or "7,12" (two int4). */
export type AdvisoryKeyForm = "bigint" | "int4-pair";

export const INT4_MIN = -2_147_483_648;
export const INT4_MAX = 2_147_483_647;
export const BIGINT_MIN = -(2n ** 63n);
export const BIGINT_MAX = 2n ** 63n - 1n;

/** The libraries whose names Baton can hash into keys. */
export const ADVISORY_LIBRARIES = ["advisory-lock", "pg-boss", "with_advisory_lock"] as const;
export type AdvisoryLibrary = (typeof ADVISORY_LIBRARIES)[number];

/**
 * A key written as in the configuration ("42", "-5", "7,12"), in the text pg_locks' SQL gives,
 * or a one-line reason why it is none.
 */
export function parseAdvisoryKey(text: string): { key: string; form: AdvisoryKeyForm } | string {
  const parts = text.split(",").map((part) => part.trim());
  if (!parts.every((part) => /^-?\d+$/.test(part))) return 'must be one integer ("42") or two ("7,12")';
  if (parts.length === 1) {
    const value = BigInt(parts[0]!);
    if (value < BIGINT_MIN || value > BIGINT_MAX) return "must fit a bigint (-2^63 to 2^63-1)";
    return { key: value.toString(), form: "bigint" };
  }
  if (parts.length === 2) {
    const values = parts.map(Number);
    if (values.some((value) => value < INT4_MIN || value > INT4_MAX)) return "each of the two keys must fit an int4 (-2^31 to 2^31-1)";
    return { key: values.join(","), form: "int4-pair" };
  }
  return 'must be one integer ("42") or two ("7,12")';
}

/** The key from pg_locks' two oid columns (unsigned 32-bit each) and objsubid: the text its SQL also gives. */
export function keyFromOids(classid: number, objid: number, objsubid: number): string {
  if (objsubid === 1) return BigInt.asIntN(64, (BigInt(classid) << 32n) | BigInt(objid)).toString();
  return `${classid | 0},${objid | 0}`;
}

/** npm advisory-lock's key of a name: two int4 from sha256. */
export function advisoryLockKeyOf(name: string): string {
  const digest = createHash("sha256").update(name).digest();
  return `${digest.readInt32LE(0)},${digest.readInt32LE(4)}`;
}

/** pg-boss's key of its schema in one database: one bigint from sha224. */
export function pgBossKeyOf(database: string, schema: string): string {
  const digest = createHash("sha224").update(`${database}.pgboss.${schema}`).digest();
  return digest.readBigInt64BE(0).toString();
}

/** Rails' with_advisory_lock's key of a name: crc32 of the name, and its prefix (WITH_ADVISORY_LOCK_PREFIX), 31 bits each. */
export function withAdvisoryLockKeyOf(name: string, prefix: number): string {
  return `${crc32(name) & 0x7fffffff},${prefix & 0x7fffffff}`;
}

/** A configured name: a key, or a library's name (and pg-boss's schema, with_advisory_lock's prefix). */
export type NamedLock =
  | { key: string; name: string; mustBeHeld: boolean }
  | { library: "advisory-lock"; name: string; mustBeHeld: boolean }
  | { library: "pg-boss"; schema: string; name: string; mustBeHeld: boolean }
  | { library: "with_advisory_lock"; prefix: number; name: string; mustBeHeld: boolean };

export type KeyName = { name: string; library: AdvisoryLibrary | null; mustBeHeld: boolean };

/**
 * The names of the keys in one database. pg-boss's keys differ by database, so the map is built
 * per database (and cached by the caller).
 */
export function nameKeys(locks: readonly NamedLock[], database: string): Map<string, KeyName> {
  const names = new Map<string, KeyName>();
  for (const lock of locks) {
    if ("key" in lock) {
      const parsed = parseAdvisoryKey(lock.key);
      if (typeof parsed !== "string") names.set(parsed.key, { name: lock.name, library: null, mustBeHeld: lock.mustBeHeld });
    } else if (lock.library === "advisory-lock") {
      names.set(advisoryLockKeyOf(lock.name), { name: lock.name, library: lock.library, mustBeHeld: lock.mustBeHeld });
    } else if (lock.library === "pg-boss") {
      names.set(pgBossKeyOf(database, lock.schema), { name: lock.name, library: lock.library, mustBeHeld: lock.mustBeHeld });
    } else {
      names.set(withAdvisoryLockKeyOf(lock.name, lock.prefix), { name: lock.name, library: lock.library, mustBeHeld: lock.mustBeHeld });
    }
  }
  return names;
}
