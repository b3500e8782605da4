import { z } from "zod";

import { ConfigError, describeConfigIssue } from "@/lib/config-files";
import { clusterName, positiveInt } from "@/lib/sources/config-fields";

import { parseAdvisoryKey } from "./advisory-keys";
import { lockTableEntry, tableFieldOf } from "./lock-table-config";

// The settings of one database server (`kind: "database"`): PostgreSQL advisory locks, and the
// lock tables of ShedLock, Spring Integration and Quartz read over the same connection; or the
// GET_LOCK user locks of a MariaDB or MySQL server (`engine`, `names`).
// A plain zod object, so lib/config.ts lists it as one member of the union on `kind` and its
// issues keep their paths (one-line errors that name the setting). The observer's role needs no
// grant to see the locks; `pg_read_all_stats` (or `pg_monitor`, which includes it) to see who
// holds them beyond the pid and application name. What belongs to one engine only is refused,
// naming the field, on the other.

export const DEFAULT_STATEMENT_TIMEOUT_MS = 2_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** Every read already finds new locks: discovery only tells which are gone. */
export const DEFAULT_DISCOVERY_INTERVAL_MS = 30_000;
/** A holder idle in a transaction this long is the classic stuck lock. */
export const DEFAULT_IDLE_IN_TRANSACTION_MAX_MS = 60_000;

export const DATABASE_ENGINES = ["postgresql", "mariadb", "mysql"] as const;
export type DatabaseEngine = (typeof DATABASE_ENGINES)[number];

/** The engines whose GET_LOCK user locks Baton reads. */
export function isGetLockEngine(engine: DatabaseEngine): engine is "mariadb" | "mysql" {
  return engine !== "postgresql";
}

/** The longest GET_LOCK name each server takes: MariaDB 10.11 refused 193 characters; MySQL's limit is 64. */
export const GET_LOCK_NAME_MAX: Record<"mariadb" | "mysql", number> = { mariadb: 192, mysql: 64 };

/** The url's scheme each engine takes, and the error that says so. */
const URL_SCHEMES: Record<DatabaseEngine, { pattern: RegExp; message: string }> = {
  postgresql: { pattern: /^postgres(ql)?:\/\/[^\s/]+/i, message: "must be a postgres:// or postgresql:// URL" },
  mariadb: { pattern: /^mysql:\/\/[^\s/]+/i, message: 'must be a mysql:// URL (mysql://user:password@host:3306/) for engine "mariadb"' },
  mysql: { pattern: /^mysql:\/\/[^\s/]+/i, message: 'must be a mysql:// URL (mysql://user:password@host:3306/) for engine "mysql"' },
};

const lockName = z.string().min(1, { message: "must not be empty" }).max(200, { message: "must be at most 200 characters" });

const keyedLock = z
  .object({
    /** One bigint key ("42") or two int4 keys ("7,12"), as the application passes them to pg_advisory_lock. */
    key: z.string().superRefine((value, ctx) => {
      const parsed = parseAdvisoryKey(value);
      if (typeof parsed === "string") ctx.addIssue({ code: "custom", message: parsed });
    }),
    name: lockName,
    mustBeHeld: z.boolean().default(false),
  })
  .strict();

const advisoryLockLibrary = z
  .object({
    /** npm advisory-lock: `createMutex(name)` locks sha256(name) as two int4 keys. */
    library: z.literal("advisory-lock"),
    name: lockName,
    mustBeHeld: z.boolean().default(false),
  })
  .strict();

const pgBossLibrary = z
  .object({
    /** pg-boss: its maintenance and migration lock, one per schema and database. */
    library: z.literal("pg-boss"),
    schema: z.string().min(1).default("pgboss"),
    name: lockName.default("pg-boss maintenance"),
    mustBeHeld: z.literal(false).default(false),
  })
  .strict();

const withAdvisoryLockLibrary = z
  .object({
    /** Rails' with_advisory_lock: `with_advisory_lock(name)` locks crc32(name) and its prefix as two int4 keys. */
    library: z.literal("with_advisory_lock"),
    name: lockName,
    /** WITH_ADVISORY_LOCK_PREFIX of the application, when it sets one. */
    prefix: z.number().int().min(0).max(2_147_483_647).default(0),
    mustBeHeld: z.boolean().default(false),
  })
  .strict();

/** One GET_LOCK name to watch: `"job:daily"` or `{ "name": "job:daily", "mustBeHeld": true }`. */
const getLockName = z.preprocess(
  (value) => (typeof value === "string" ? { name: value } : value),
  z
    .object({
      name: z.string().min(1, { message: "must not be empty" }),
      mustBeHeld: z.boolean().default(false),
    })
    .strict(),
);

const LIBRARY_SCHEMAS = { "advisory-lock": advisoryLockLibrary, "pg-boss": pgBossLibrary, with_advisory_lock: withAdvisoryLockLibrary } as const;

type NamedLockEntry = z.output<typeof keyedLock> | z.output<(typeof LIBRARY_SCHEMAS)[keyof typeof LIBRARY_SCHEMAS]>;

/**
 * One entry of `locks`: a key, or a library's name. Picked by its `library` (a plain union would
 * answer "matches none" where the key itself is what is wrong).
 */
const namedLock = z.unknown().transform((value, ctx): NamedLockEntry => {
  const library = value !== null && typeof value === "object" ? (value as { library?: unknown }).library : undefined;
  if (library !== undefined && !(typeof library === "string" && Object.hasOwn(LIBRARY_SCHEMAS, library))) {
    ctx.addIssue({ code: "custom", message: 'must be "advisory-lock", "pg-boss" or "with_advisory_lock"', path: ["library"] });
    return z.NEVER;
  }
  const schema: z.ZodType<NamedLockEntry> = library === undefined ? keyedLock : LIBRARY_SCHEMAS[library as keyof typeof LIBRARY_SCHEMAS];
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  // The issues as they are (codes, paths under the entry), so the error names the field.
  for (const issue of parsed.error.issues) ctx.addIssue({ ...issue } as never);
  return z.NEVER;
});

const entryFields = z
  .object({
    kind: z.literal("database"),
    name: clusterName,
    /** PostgreSQL (advisory locks, lock tables) or MariaDB/MySQL (GET_LOCK user locks). */
    engine: z.enum(DATABASE_ENGINES, { error: () => ({ message: 'must be "postgresql", "mariadb" or "mysql"' }) }).default("postgresql"),
    /**
     * The server: postgres:// as a role in pg_monitor (or pg_read_all_stats), its database being
     * where Baton connects; mysql:// for mariadb and mysql (checked against the engine below).
     */
    url: z.string().trim(),
    /** The databases whose locks are watched (advisory locks are per database; pg_locks shows every one). Default: all. */
    databases: z.array(z.string().min(1)).min(1, { message: "must name at least one database, or be left out for all" }).optional(),
    /** Names of keys: integer keys, or the names an application passes to a library that hashes them. */
    locks: z.array(namedLock).default([]),
    /** MariaDB/MySQL: GET_LOCK names to watch (the only ones read where neither performance_schema nor the metadata_lock_info plugin is there). */
    names: z.array(getLockName).optional(),
    /** Lock tables read over the same connection, in the url's database: ShedLock's, Spring Integration's INT_LOCK, Quartz's clustered JobStore. None when absent. */
    tables: z.array(lockTableEntry).optional(),
    /** A holder "idle in transaction" longer than this is flagged as a stuck lock in the lock's details. */
    idleInTransactionMaxMs: positiveInt(1_000, 86_400_000).default(DEFAULT_IDLE_IN_TRANSACTION_MAX_MS),
    pollIntervalMs: positiveInt(100, 3_600_000).optional(),
    discoveryIntervalMs: positiveInt(1_000, 86_400_000).default(DEFAULT_DISCOVERY_INTERVAL_MS),
    /** The statement timeout of every read (SET LOCAL statement_timeout in a read-only transaction). */
    statementTimeoutMs: positiveInt(100, 60_000).default(DEFAULT_STATEMENT_TIMEOUT_MS),
    connectTimeoutMs: positiveInt(100, 60_000).default(DEFAULT_CONNECT_TIMEOUT_MS),
  })
  .strict();

export const databaseClusterSchema = entryFields.superRefine((config, ctx) => {
  const scheme = URL_SCHEMES[config.engine];
  if (!(scheme.pattern.test(config.url) && URL.canParse(config.url))) ctx.addIssue({ code: "custom", message: scheme.message, path: ["url"] });
  if (isGetLockEngine(config.engine)) refineGetLockEntry(config, config.engine, ctx);
  else if (config.names !== undefined) {
    ctx.addIssue({
      code: "custom",
      message: 'lists GET_LOCK names, which only engine "mariadb" or "mysql" has (PostgreSQL\'s named keys go in locks)',
      path: ["names"],
    });
  }
  const seen = new Map<string, number>();
  for (const [index, lock] of config.locks.entries()) {
    const id = "key" in lock ? `key ${lock.key}` : lock.library === "pg-boss" ? `pg-boss ${lock.schema}` : `${lock.library} ${lock.name}`;
    const first = seen.get(id);
    if (first !== undefined) ctx.addIssue({ code: "custom", message: `names the same lock as locks[${first}]`, path: ["locks", index] });
    else seen.set(id, index);
  }
  const tables = new Map<string, number>();
  for (const [index, table] of (config.tables ?? []).entries()) {
    const first = tables.get(table.table.toLowerCase());
    if (first !== undefined) {
      ctx.addIssue({
        code: "custom",
        message: `names the same table as tables[${first}]`,
        path: ["tables", index, tableFieldOf(table)],
      });
    } else tables.set(table.table.toLowerCase(), index);
  }
});

/** What only PostgreSQL has is refused on a GET_LOCK engine, naming the field; the names checked against the engine's limit. */
function refineGetLockEntry(config: z.output<typeof entryFields>, engine: "mariadb" | "mysql", ctx: z.RefinementCtx): void {
  const onlyPostgres = (field: string, what: string) =>
    ctx.addIssue({ code: "custom", message: `${what} only engine "postgresql" has (engine is "${engine}": list GET_LOCK names in names)`, path: [field] });
  if (config.locks.length > 0) onlyPostgres("locks", "names advisory-lock keys, which");
  if (config.tables !== undefined) onlyPostgres("tables", "lists lock tables, which");
  if (config.databases !== undefined) onlyPostgres("databases", "filters advisory locks by database, which");
  const seen = new Map<string, number>();
  for (const [index, entry] of (config.names ?? []).entries()) {
    if (entry.name.length > GET_LOCK_NAME_MAX[engine]) {
      // At the entry, not its name: an entry may be the name itself ("job:daily"), and the error shows it.
      ctx.addIssue({
        code: "custom",
        message: `names a lock longer than ${GET_LOCK_NAME_MAX[engine]} characters (${engine}'s limit for GET_LOCK names)`,
        path: ["names", index],
      });
    }
    const first = seen.get(entry.name);
    if (first !== undefined) ctx.addIssue({ code: "custom", message: `names the same lock as names[${first}]`, path: ["names", index] });
    else seen.set(entry.name, index);
  }
}

export type DatabaseClusterInput = z.input<typeof databaseClusterSchema>;
export type DatabaseClusterConfig = z.output<typeof databaseClusterSchema>;
/** A database cluster entry made ready: its poll interval defaulted. */
export type DatabaseSourceConfig = DatabaseClusterConfig & { pollIntervalMs: number };

/** Whether an entry watches GET_LOCK locks (MariaDB, MySQL) rather than PostgreSQL's. */
export function isGetLockConfig<C extends { engine: DatabaseEngine }>(config: C): config is C & { engine: "mariadb" | "mysql" } {
  return isGetLockEngine(config.engine);
}

/** Parses one database source, throwing lib/config.ts's one-line ConfigError. */
export function parseDatabaseClusterConfig(input: unknown, root = "cluster"): DatabaseClusterConfig {
  const parsed = databaseClusterSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new ConfigError(describeConfigIssue(root, input, parsed.error));
}

/** Where the server is, without credentials: "db.internal:5432/jobs" (a mysql:// url's default port is 3306). */
export function describeServer(url: string): string {
  const parsed = new URL(url);
  const defaultPort = parsed.protocol === "mysql:" ? "3306" : "5432";
  return `${parsed.hostname}:${parsed.port || defaultPort}${parsed.pathname === "/" ? "" : parsed.pathname}`;
}
