import pg from "pg";

/**
 * Everything about the public schema that a migration can get wrong: columns with types,
 * nullability and defaults; indexes; constraints; enum labels in order. Sorted, so two
 * databases can be compared with toEqual.
 *
 * Partitions are left out and a partitioned table's index reads as a plain one ("ON ONLY"
 * dropped): schema.prisma cannot declare partitioning, so what it describes, and what the
 * comparison holds the migrations to, is the parent table (exclusivity_event). The partition tree
 * itself is tested in tests/integration/event-store/.
 */
export type SchemaDescription = { columns: string[]; indexes: string[]; constraints: string[]; enums: string[] };

export async function describeSchema(url: string): Promise<SchemaDescription> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const columns = await client.query<{ line: string }>(`
      select table_name || '.' || column_name || ' ' || udt_name || ' ' || is_nullable || ' ' || coalesce(column_default, '') as line
      from information_schema.columns where table_schema = 'public' and table_name <> '_prisma_migrations'
        and not exists (select 1 from pg_class c where c.relname = table_name and c.relispartition)
      order by 1`);
    const indexes = await client.query<{ line: string }>(`
      select replace(indexdef, ' ON ONLY ', ' ON ') as line from pg_indexes where schemaname = 'public' and tablename <> '_prisma_migrations'
        and not exists (select 1 from pg_class c where c.relname = tablename and c.relispartition)
      order by 1`);
    const constraints = await client.query<{ line: string }>(`
      select rel.relname || ' ' || con.conname || ' ' || pg_get_constraintdef(con.oid) as line
      from pg_constraint con join pg_class rel on rel.oid = con.conrelid join pg_namespace ns on ns.oid = rel.relnamespace
      where ns.nspname = 'public' and rel.relname <> '_prisma_migrations' and not rel.relispartition order by 1`);
    const enums = await client.query<{ line: string }>(`
      select t.typname || ' ' || string_agg(e.enumlabel, ',' order by e.enumsortorder) as line
      from pg_type t join pg_enum e on e.enumtypid = t.oid join pg_namespace ns on ns.oid = t.typnamespace
      where ns.nspname = 'public' group by t.typname order by 1`);
    return {
      columns: columns.rows.map((r) => r.line),
      indexes: indexes.rows.map((r) => r.line),
      constraints: constraints.rows.map((r) => r.line),
      enums: enums.rows.map((r) => r.line),
    };
  } finally {
    await client.end();
  }
}

export async function executeScript(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
