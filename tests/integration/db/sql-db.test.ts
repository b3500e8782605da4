import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createDb, type Db } from "@/lib/db/client";
import { join, sql, type Sql } from "@/lib/db/sql";
import { createSqlDb, type PooledSqlDb, type SqlDb } from "@/lib/db/sql-db";
import { createScratchDatabase, getTestDatabaseUrl } from "@/tests/support/test-database";

// The worker runs its SQL through createSqlDb (plain pg); the web app runs the same query modules
// through the Prisma client. Both must hand the modules the same JavaScript values.

let scratch: { url: string; drop(): Promise<void> };
let prisma: Db;
let pooled: PooledSqlDb;

beforeAll(async () => {
  scratch = await createScratchDatabase(getTestDatabaseUrl(), "sqldb");
  prisma = createDb(scratch.url);
  pooled = createSqlDb(scratch.url);
  await pooled.$executeRaw(sql`create type mood as enum ('calm', 'busy')`);
  await pooled.$executeRaw(sql`create table note (id bigserial primary key, body text not null, at timestamptz not null)`);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await pooled?.$disconnect();
  await scratch?.drop();
});

/** Each column's value and the name of its JavaScript type, so that 1n and 1 or a Date and its ISO string differ. */
function typed(rows: Record<string, unknown>[]) {
  return rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([column, value]) => {
        const kind =
          value === null
            ? "null"
            : Array.isArray(value)
              ? `array of ${value.map((v) => (v === null ? "null" : (v?.constructor?.name ?? typeof v))).join(",")}`
              : (value?.constructor?.name ?? typeof value);
        return [column, { kind, value: JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? `${v}n` : v)) }];
      }),
    ),
  );
}

const bothRead = async (query: Sql) => [
  typed(await prisma.$queryRaw<Record<string, unknown>[]>(query)),
  typed(await pooled.$queryRaw<Record<string, unknown>[]>(query)),
];

describe("createSqlDb", () => {
  it("reads every column type the query modules select as the Prisma client does", async () => {
    const at = new Date("2026-03-01T10:15:30.123Z");
    const [viaPrisma, viaPg] = await bothRead(sql`
      select 1::int2 as small, 2::int4 as int, 9007199254740993::int8 as big, count(*) as counted, sum(x) as summed, 1.25::numeric as exact,
        avg(x) as averaged, 0.5::float4 as float4, 0.25::float8 as float8, true as flag, 'text'::text as text, 'v'::varchar(4) as varchar,
        '{"a": [1, {"b": null}]}'::jsonb as jsonb, '[1, 2]'::json as json, ${at.toISOString()}::timestamptz as timestamptz,
        '2026-03-01 10:15:30.123'::timestamp as timestamp, '2026-03-01'::date as day, array['a', null, 'c']::text[] as texts,
        array[1, null]::int4[] as ints, array[1, 9007199254740993]::int8[] as bigs, array[${at.toISOString()}::timestamptz] as times,
        'calm'::mood as mood, null::text as nothing, null::int8 as no_big, null::timestamptz as no_time
      from generate_series(1, 3) as x`);
    expect(viaPg).toEqual(viaPrisma);
    expect(viaPg?.[0]).toMatchObject({ big: { kind: "BigInt" }, counted: { kind: "BigInt" }, timestamptz: { kind: "Date" }, exact: { value: '"1.25"' } });
  });

  it("sends values as the Prisma client does: dates, bigints, arrays with nulls, booleans, nested fragments", async () => {
    const at = new Date("2026-03-01T10:15:30.123Z");
    const [viaPrisma, viaPg] = await bothRead(sql`
      select ${at.toISOString()}::timestamptz as iso, ${at}::timestamptz as date_object, ${at} < now() as compared, ${12345678901234n}::int8 as big, ${["x", null, 'it\'s "quoted" {a,b}']}::text[] as texts,
        ${[1n, 2n]}::bigint[] as bigs, ${true}::boolean as flag, ${JSON.stringify({ k: "v" })}::jsonb as doc,
        ${3} + 4 as sum, ${"7"}::int as cast_text, 'x' in (${join(["x", "y"])}) as listed`);
    expect(viaPg).toEqual(viaPrisma);
  });

  it("counts the rows a statement touched and commits or rolls back a transaction", async () => {
    const db: SqlDb = pooled;
    const inserted = await db.$executeRaw(sql`insert into note (body, at) select 'n' || i, now() from generate_series(1, 3) as i`);
    expect(inserted).toBe(3);

    const id = await db.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<{ id: bigint }[]>(sql`insert into note (body, at) values ('kept', now()) returning id`);
      return row!.id;
    });
    expect(typeof id).toBe("bigint");

    await expect(
      db.$transaction(async (tx) => {
        await tx.$executeRaw(sql`insert into note (body, at) values ('rolled back', now())`);
        throw new Error("the caller gave up");
      }),
    ).rejects.toThrow("the caller gave up");
    const bodies = await db.$queryRaw<{ body: string }[]>(sql`select body from note order by id`);
    expect(bodies.map((b) => b.body)).toEqual(["n1", "n2", "n3", "kept"]);
  });

  it("rejects a statement that fails with the database's error, and the pool stays usable", async () => {
    await expect(pooled.$queryRaw(sql`select * from no_such_table`)).rejects.toThrow(/no_such_table/);
    await expect(pooled.$transaction((tx) => tx.$executeRaw(sql`insert into note (body, at) values (null, now())`))).rejects.toThrow(/null value/);
    expect(await pooled.$queryRaw(sql`select 1 as one`)).toEqual([{ one: 1 }]);
  });
});
