import type pg from "pg";

export type EventStoreSize = { tableBytes: number; indexBytes: number; describe(events: number): string };

/** Bytes on disk of exclusivity_event: heap (with TOAST) and indexes, summed over every partition (pg_partition_tree is empty for a plain table). */
export async function describeEventStoreSize(client: pg.Client): Promise<EventStoreSize> {
  const result = await client.query<{ table_bytes: string; index_bytes: string }>(`
    select coalesce(sum(pg_table_size(relid)), 0) as table_bytes, coalesce(sum(pg_indexes_size(relid)), 0) as index_bytes
    from (select relid from pg_partition_tree('exclusivity_event') union select 'exclusivity_event'::regclass) tree`);
  const tableBytes = Number(result.rows[0]!.table_bytes);
  const indexBytes = Number(result.rows[0]!.index_bytes);
  const gb = (bytes: number) => `${(bytes / 1e9).toFixed(2)} GB`;
  return {
    tableBytes,
    indexBytes,
    describe: (events) =>
      `${gb(tableBytes + indexBytes)} (table ${gb(tableBytes)}, indexes ${gb(indexBytes)}): ${((tableBytes + indexBytes) / events).toFixed(0)} bytes per event (${(tableBytes / events).toFixed(0)} table, ${(indexBytes / events).toFixed(0)} indexes)`,
  };
}
