import { z } from "zod";

import { ConfigError, describeConfigIssue } from "@/lib/config-files";
import { clusterName, positiveInt } from "@/lib/sources/config-fields";

import { parseAdvisoryKey } from "./advisory-keys";
import { lockTableEntry, tableFieldOf } from "./lock-table-config";

// The settings of one database server (`kind: "database"`): PostgreSQL advisory locks, and the
// lock tables of ShedLock, Spring Integration and Quartz read over the same connection.
// A plain zod object, so lib/config.ts lists it as one member of the union on `kind` and its
// issues keep their paths (one-line errors that name the setting). The observer's role needs no
// grant to see the locks; `pg_read_all_stats` (or `pg_monitor`, which includes it) to see who
// holds them beyond the pid and application name.

export const DEFAULT_STATEMENT_TIMEOUT_MS = 2_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** Every read already finds new locks: discovery only tells which are gone. */
export const DEFAULT_DISCOVERY_INTERVAL_MS = 30_000;
/** A holder idle in a transaction this long is the classic stuck lock. */
export const DEFAULT_IDLE_IN_TRANSACTION_MAX_MS = 60_000;

const postgresUrl = z
  .string()
  .trim()
  .refine((value) => /^postgres(ql)?:\/\/[^\s/]+/i.test(value) && URL.canParse(value), { message: "must be a postgres:// or postgresql:// URL" });

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

export const databaseClusterSchema = z
  .object({
    kind: z.literal("database"),
    name: clusterName,
    /** Only PostgreSQL for now (advisory locks). */
    engine: z.literal("postgresql", { error: () => ({ message: 'must be "postgresql"' }) }).default("postgresql"),
    /** The server, as a role in pg_monitor (or pg_read_all_stats); its database is where Baton connects. */
    url: postgresUrl,
    /** The databases whose locks are watched (advisory locks are per database; pg_locks shows every one). Default: all. */
    databases: z.array(z.string().min(1)).min(1, { message: "must name at least one database, or be left out for all" }).optional(),
    /** Names of keys: integer keys, or the names an application passes to a library that hashes them. */
    locks: z.array(namedLock).default([]),
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
  .strict()
  .superRefine((config, ctx) => {
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

export type DatabaseClusterInput = z.input<typeof databaseClusterSchema>;
export type DatabaseClusterConfig = z.output<typeof databaseClusterSchema>;
/** A database cluster entry made ready: its poll interval defaulted. */
export type DatabaseSourceConfig = DatabaseClusterConfig & { pollIntervalMs: number };

/** Parses one database source, throwing lib/config.ts's one-line ConfigError. */
export function parseDatabaseClusterConfig(input: unknown, root = "cluster"): DatabaseClusterConfig {
  const parsed = databaseClusterSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new ConfigError(describeConfigIssue(root, input, parsed.error));
}

/** Where the server is, without credentials: "db.internal:5432/jobs". */
export function describeServer(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname === "/" ? "" : parsed.pathname}`;
}
