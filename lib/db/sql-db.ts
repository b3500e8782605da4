import "server-only";

import { Decimal, type Sql } from "@prisma/client-runtime-utils";
import pg from "pg";

/**
 * What a module that runs its own SQL needs from the database: Prisma's raw-SQL methods. A
 * PrismaClient has them (the web app passes its client), and so does a plain pg pool through
 * createSqlDb (the worker, which thereby never loads the Prisma client: see docs/scale.md,
 * "The worker's memory").
 */
export type SqlQueries = {
  $queryRaw<T = unknown>(query: Sql): Promise<T>;
  /** The number of rows the statement touched. */
  $executeRaw(query: Sql): Promise<number>;
};

export type SqlDb = SqlQueries & {
  /** Runs fn in one transaction: committed when fn resolves, rolled back when it throws. */
  $transaction<R>(fn: (tx: SqlQueries) => Promise<R>, options?: { timeout?: number }): Promise<R>;
};

export type PooledSqlDb = SqlDb & {
  /** Closes the pool's connections. */
  $disconnect(): Promise<void>;
};

// A statement, or a transaction left idle by its caller, that takes longer than this is stuck
// (locks, a dying server): it fails and releases its locks. The pool has no per-transaction
// timer as Prisma's interactive transactions do; these two bound the same thing.
const STATEMENT_TIMEOUT_MS = 60_000;
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;

const OID = { int8: 20, int8Array: 1016, numeric: 1700, numericArray: 1231, date: 1082, timestamp: 1114, timestampArray: 1115 } as const;

const asBigInt = (text: string) => BigInt(text);
const asDecimal = (text: string) => new Decimal(text);
// A timestamp without time zone is UTC to Prisma, which writes every DateTime that way.
const asUtcTimestamp = (text: string) => new Date(`${text.replace(" ", "T")}Z`);
const asUtcDate = (text: string) => new Date(`${text}T00:00:00Z`);

function arrayOf<T>(oid: number, parse: (text: string) => T) {
  const parseArray = pg.types.getTypeParser(oid) as (text: string) => (string | null)[];
  return (text: string) => parseArray(text).map((item) => (item === null ? null : parse(item)));
}

// The column types whose JavaScript value pg and Prisma's raw queries differ on; every other
// type (text, integers, floats, booleans, json, timestamptz, arrays of them) both read the same.
// tests/integration/db/sql-db.test.ts runs one query through both and compares.
const PRISMA_LIKE_PARSERS = new Map<number, (text: string) => unknown>([
  [OID.int8, asBigInt],
  [OID.int8Array, arrayOf(OID.int8Array, asBigInt)],
  [OID.numeric, asDecimal],
  [OID.numericArray, arrayOf(OID.numericArray, asDecimal)],
  [OID.timestamp, asUtcTimestamp],
  [OID.timestampArray, arrayOf(OID.timestampArray, asUtcTimestamp)],
  [OID.date, asUtcDate],
]);

const prismaLikeTypes = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    return (format !== "binary" && PRISMA_LIKE_PARSERS.get(oid)) || pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

function queriesOn(client: Pick<pg.Pool, "query">): SqlQueries {
  return {
    async $queryRaw<T>(query: Sql): Promise<T> {
      return (await client.query(query.text, query.values)).rows as T;
    },
    async $executeRaw(query: Sql): Promise<number> {
      return (await client.query(query.text, query.values)).rowCount ?? 0;
    },
  };
}

/** A database handle on a plain pg pool, with Prisma's raw-SQL methods and result types. */
export function createSqlDb(databaseUrl: string, options: { max?: number; applicationName?: string } = {}): PooledSqlDb {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.max ?? 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    application_name: options.applicationName ?? "baton",
    types: prismaLikeTypes,
  });
  // An idle connection that dies (server restart) emits 'error' on the pool; without a listener
  // that would end the process. The next query gets a fresh connection.
  pool.on("error", (error) => console.error(`[baton] database pool: idle connection failed: ${error.message}`));
  return {
    ...queriesOn(pool),
    async $transaction<R>(fn: (tx: SqlQueries) => Promise<R>): Promise<R> {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query("begin");
        const result = await fn(queriesOn(client));
        await client.query("commit");
        return result;
      } catch (error) {
        await client.query("rollback").catch((rollbackError: Error) => (broken = rollbackError));
        throw error;
      } finally {
        // A connection whose rollback failed is in an unknown state: the pool closes it.
        client.release(broken);
      }
    },
    $disconnect: () => pool.end(),
  };
}
