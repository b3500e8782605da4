import "server-only";

import type { Db } from "@/lib/db/client";
import { sql } from "@/lib/db/sql";
import { DatabaseUnavailableError } from "@/lib/ingest/database-unavailable-error";
import type { CountsInput } from "@/lib/ingest/counts/counts-schema";

export type CountsResult = {
  /** Groups written now. */
  accepted: number;
  /** Groups Baton already had for this client and minute (a re-sent body). */
  duplicates: number;
};

/**
 * Writes one minute of counts and adds the new groups' increments to violation_minute.events
 * and violation_hour.events, in one statement (one transaction): a group already stored for the same (client, minute,
 * service, subscription, topic) is not inserted and adds nothing, so a re-sent body changes
 * nothing. Groups and rollup rows are written in key order, so concurrent bodies wait instead of
 * deadlocking. Throws DatabaseUnavailableError (nothing written) when the database fails.
 */
export async function ingestCounts(db: Db, input: CountsInput): Promise<CountsResult> {
  const minute = new Date(input.minute).toISOString();
  const subscriptions = input.counts.map((g) => g.subscription ?? "");
  const topics = input.counts.map((g) => g.topic ?? "");
  const increments = input.counts.map((g) => g.increments);
  let rows: { inserted: number }[];
  try {
    rows = await db.$queryRaw<{ inserted: number }[]>(sql`
      with input as (
        select * from unnest(${subscriptions}::text[], ${topics}::text[], ${increments}::int4[]) as t(subscription, topic, increments)
      ),
      inserted as (
        insert into exclusivity_count (client_id, minute, service, subscription, topic, worker, increments)
        select ${input.clientId}, ${minute}::timestamptz, ${input.service}, subscription, topic, ${input.worker}, increments
        from input
        order by subscription collate "C", topic collate "C"
        on conflict do nothing
        returning subscription, increments
      ),
      rollup as (
        insert into violation_minute as vm (bucket, service, subscription, violations, events)
        select ${minute}::timestamptz, ${input.service}, subscription, 0, sum(increments)::int
        from inserted
        group by subscription
        order by subscription collate "C"
        on conflict (bucket, service, subscription) do update set events = vm.events + excluded.events
      ),
      hourly_rollup as (
        insert into violation_hour as vh (bucket, service, subscription, violations, events)
        select date_trunc('hour', ${minute}::timestamptz, 'UTC'), ${input.service}, subscription, 0, sum(increments)::int
        from inserted
        group by subscription
        order by subscription collate "C"
        on conflict (bucket, service, subscription) do update set events = vh.events + excluded.events
      )
      select count(*)::int as inserted from inserted`);
  } catch (error) {
    console.error(`[baton] ingest: writing the counts of ${input.service} for ${minute} failed; answering "database unavailable":`, error);
    throw new DatabaseUnavailableError(error);
  }
  const inserted = rows[0]?.inserted ?? 0;
  return { accepted: inserted, duplicates: input.counts.length - inserted };
}
