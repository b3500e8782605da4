import { z } from "zod";

import { positiveInt } from "@/lib/sources/config-fields";

// One entry of a database cluster's `tables`: a lock table that Baton reads (never writes) over
// the cluster's connection, in the url's database. Picked by its `format`, as `locks` picks by
// `library`, so an error names the field that is wrong rather than "matches none".

export const LOCK_TABLE_FORMATS = ["shedlock", "spring-integration", "quartz", "graphile-worker"] as const;
export type LockTableFormat = (typeof LOCK_TABLE_FORMATS)[number];

/** `table` or `schema.table`, each part a plain identifier (folded to lower case, as PostgreSQL does) or a "quoted" one. */
const TABLE_NAME = /^(?:"[^"]+"|[A-Za-z_][A-Za-z0-9_$]*)(?:\.(?:"[^"]+"|[A-Za-z_][A-Za-z0-9_$]*))?$/;

const tableName = z
  .string()
  .trim()
  .refine((value) => TABLE_NAME.test(value), { message: 'must be a table name: "shedlock" or "public.shedlock"' });

/**
 * The zone a table's TIMESTAMP columns were written in (ShedLock's JDBC provider writes the JVM's
 * zone). Checked here, and set as the read's `TimeZone`: a literal, so only zone-name characters.
 */
const timeZone = z
  .string()
  .trim()
  .refine((value) => /^[A-Za-z0-9_+\-/]+$/.test(value) && isKnownTimeZone(value), { message: 'must be a time zone name: "UTC", "Europe/Paris"' })
  .default("UTC");

function isKnownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const shedlockTable = z
  .object({
    /** ShedLock (JdbcLockProvider, JdbcTemplateLockProvider): rows name, lock_until, locked_at, locked_by. */
    format: z.literal("shedlock"),
    table: tableName.default("shedlock"),
    timeZone,
  })
  .strict();

const springIntegrationTable = z
  .object({
    /** Spring Integration's JdbcLockRegistry: INT_LOCK (LOCK_KEY, REGION, CLIENT_ID, CREATED_DATE, and EXPIRED_AFTER since 7.0). */
    format: z.literal("spring-integration"),
    table: tableName.default("int_lock"),
    /** The regions read (DefaultLockRepository's setRegion; "DEFAULT" unless set). */
    regions: z
      .array(z.string().min(1, { message: "must not be empty" }).max(100))
      .min(1, { message: "must name at least one region" })
      .default(["DEFAULT"]),
    /** The lock names the applications obtain: LOCK_KEY is a name-based UUID of the name, so rows show under these names. */
    names: z.array(z.string().min(1, { message: "must not be empty" })).default([]),
    /** Spring Integration 6.x (no EXPIRED_AFTER): the registry's TTL, so that a row's expiry is CREATED_DATE + ttlMs. */
    ttlMs: positiveInt(100, 86_400_000).optional(),
    timeZone,
  })
  .strict();

/** Quartz's `org.quartz.jobStore.tablePrefix`, optionally after a schema: "qrtz_", "jobs.QRTZ_". */
const QUARTZ_PREFIX = /^(?:(?:"[^"]+"|[A-Za-z_][A-Za-z0-9_$]*)\.)?[A-Za-z_][A-Za-z0-9_$]*$/;

const quartzTable = z
  .object({
    /** Quartz's clustered JDBC JobStore: <prefix>FIRED_TRIGGERS rows in EXECUTING, <prefix>SCHEDULER_STATE check-ins. */
    format: z.literal("quartz"),
    tablePrefix: z
      .string()
      .trim()
      .refine((value) => QUARTZ_PREFIX.test(value), { message: 'must be a table prefix: "qrtz_" or "jobs.qrtz_"' })
      .default("qrtz_"),
    /** org.quartz.scheduler.instanceName (SCHED_NAME): only this scheduler's jobs. Default: every scheduler in the tables. */
    schedulerName: z
      .string()
      .min(1, { message: "must not be empty" })
      .max(120, { message: "must be at most 120 characters (SCHED_NAME is VARCHAR(120))" })
      .optional(),
  })
  .strict()
  // `table`: the table read for the jobs, under which the locks are keyed and errors named.
  .transform((entry) => ({ ...entry, table: `${entry.tablePrefix}fired_triggers`, timeZone: "UTC" }));

/** A schema name: a plain identifier (folded to lower case) or a "quoted" one. */
const SCHEMA_NAME = /^(?:"[^"]+"|[A-Za-z_][A-Za-z0-9_$]*)$/;

const graphileWorkerTable = z
  .object({
    /** graphile-worker's named queues (each runs one job at a time): <schema>._private_job_queues rows, locked_by and locked_at. */
    format: z.literal("graphile-worker"),
    /** graphile-worker's schema (its `schema` option, GRAPHILE_WORKER_SCHEMA). */
    schema: z
      .string()
      .trim()
      .refine((value) => SCHEMA_NAME.test(value), { message: 'must be a schema name: "graphile_worker"' })
      .default("graphile_worker"),
  })
  .strict()
  // `table`: the table read, under which the locks are keyed and errors named.
  .transform((entry) => ({ ...entry, table: `${entry.schema}._private_job_queues`, timeZone: "UTC" }));

const TABLE_SCHEMAS = {
  shedlock: shedlockTable,
  "spring-integration": springIntegrationTable,
  quartz: quartzTable,
  "graphile-worker": graphileWorkerTable,
} as const;

export type ShedlockTableEntry = z.output<typeof shedlockTable>;
export type SpringIntegrationTableEntry = z.output<typeof springIntegrationTable>;
export type QuartzTableEntry = z.output<typeof quartzTable>;
export type GraphileWorkerTableEntry = z.output<typeof graphileWorkerTable>;
export type LockTableEntry = ShedlockTableEntry | SpringIntegrationTableEntry | QuartzTableEntry | GraphileWorkerTableEntry;

export const lockTableEntry = z.unknown().transform((value, ctx): LockTableEntry => {
  const format = value !== null && typeof value === "object" ? (value as { format?: unknown }).format : undefined;
  if (!(typeof format === "string" && Object.hasOwn(TABLE_SCHEMAS, format))) {
    ctx.addIssue({ code: "custom", message: 'must be "shedlock", "spring-integration", "quartz" or "graphile-worker"', path: ["format"] });
    return z.NEVER;
  }
  const schema: z.ZodType<LockTableEntry> = TABLE_SCHEMAS[format as LockTableFormat];
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  // The issues as they are (codes, paths under the entry), so the error names the field.
  for (const issue of parsed.error.issues) ctx.addIssue({ ...issue } as never);
  return z.NEVER;
});

/** The field of a table entry that names its table: what an error about the table points at. */
export function tableFieldOf(entry: LockTableEntry): "table" | "tablePrefix" | "schema" {
  if (entry.format === "quartz") return "tablePrefix";
  if (entry.format === "graphile-worker") return "schema";
  return "table";
}
