import "server-only";

import { raw, sql } from "@/lib/db/sql";
import type { SqlDb } from "@/lib/db/sql-db";
import { splitBySize } from "@/lib/retention/split-by-size";
import { compareText } from "@/lib/compare-text";

export type PartitionCutoffs = {
  /** Hour partitions of events that are not violations ending at or before this instant are dropped. */
  events: Date;
  /** The same for the violations' day partitions (kept longer, as a rule). */
  violations: Date;
};

/**
 * A partition as the SQL function baton_ensure_event_partitions names it: a day of violations
 * (exclusivity_event_violation_pYYYYMMDD) or an hour of the other events
 * (exclusivity_event_other_pYYYYMMDDHH).
 */
const TIME_PARTITION = /^exclusivity_event_(?:(violation)_p(\d{4})(\d{2})(\d{2})|other_p(\d{4})(\d{2})(\d{2})(\d{2}))$/;

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * Waits at most this long for the lock a DETACH takes on the partitioned table: a long read
 * holding it would otherwise queue every insert behind the DETACH. A run that gives up drops the
 * partition at the next run.
 */
const DROP_LOCK_TIMEOUT = "2s";

/**
 * Tables per DROP statement: a day's hours and more. Each table locks itself, its indexes and its
 * TOAST table until the commit; a first run after weeks of downtime (hundreds of hours) in one
 * statement ran out of the lock table ("out of shared memory").
 */
const DROP_BATCH = 32;

/**
 * DROP statements running at once, each on its own connection. The commit of a DROP waits for the
 * filesystem to free the table's files, and on this machine's disk (ext4 mounted with online
 * discard) four at once are faster: `rm` freed 5 GB in 0.86-0.89 s against 1.14-1.22 s one after
 * the other, and a day of a 100 M-event store (5.1 GB) went in 950 and 1,385 ms against 1,200 and
 * 1,614 ms in one statement (docs/event-store-at-scale.md). Four stays well under the pool's ten
 * connections, so ingest and the reads keep theirs.
 */
const DROP_PARALLELISM = 4;

type TimePartition = { name: string; parent: string; isViolation: boolean; endMs: number; bytes: number };

/** The partitions of both sub-trees, and the tables of that name left detached by a stopped run. */
async function listTimePartitions(db: SqlDb): Promise<(TimePartition & { isAttached: boolean })[]> {
  const rows = await db.$queryRaw<{ name: string; is_attached: boolean; bytes: bigint }[]>(sql`
    select c.relname as name, i.inhrelid is not null as is_attached, pg_total_relation_size(c.oid) as bytes
    from pg_class c
    left join pg_inherits i on i.inhrelid = c.oid and i.inhparent in ('exclusivity_event_violation'::regclass, 'exclusivity_event_other'::regclass)
    where c.relkind = 'r' and c.relnamespace = current_schema()::regnamespace and c.relname ~ '^exclusivity_event_(violation|other)_p[0-9]+$'`);
  const partitions: (TimePartition & { isAttached: boolean })[] = [];
  for (const { name, is_attached: isAttached, bytes: size } of rows) {
    const match = TIME_PARTITION.exec(name);
    if (!match) continue;
    const bytes = Number(size);
    if (match[1] === "violation") {
      partitions.push({
        name,
        parent: "exclusivity_event_violation",
        isViolation: true,
        isAttached,
        bytes,
        endMs: Date.UTC(Number(match[2]), Number(match[3]) - 1, Number(match[4])) + DAY_MS,
      });
    } else {
      partitions.push({
        name,
        parent: "exclusivity_event_other",
        isViolation: false,
        isAttached,
        bytes,
        endMs: Date.UTC(Number(match[5]), Number(match[6]) - 1, Number(match[7]), Number(match[8])) + HOUR_MS,
      });
    }
  }
  return partitions.sort((a, b) => a.endMs - b.endMs || compareText(a.name, b.name));
}

/**
 * Drops every partition (an hour of events, a day of violations) whose whole range lies before
 * its sub-tree's cutoff, oldest first; returns the names dropped. A partition is dropped only once
 * every event in it is past the retention, so an event is kept at least the retention and at most
 * an hour longer (a day for violations). Each partition is first detached in its own short
 * transaction (a catalog change: the only moment the parent is locked, and inserts wait), then
 * they are dropped as tables of their own, DROP_BATCH per statement, in DROP_PARALLELISM lists of
 * about the same bytes at once: the DROP's commit unlinks the files, which takes as long as they
 * are big, and locks nothing that ingest or the reads use; a few commits for a day's hours, where
 * a transaction per table paid a WAL flush each. Dropping leaves no dead
 * rows behind (no vacuum debt), where a DELETE of a day's rows rewrote as much as ingesting them.
 * A run stopped between the two steps leaves a detached table that the next run drops (it is
 * listed by name, attached or not).
 */
export async function dropExpiredPartitions(db: SqlDb, cutoffs: PartitionCutoffs): Promise<string[]> {
  const expired = (await listTimePartitions(db)).filter((p) => p.endMs <= (p.isViolation ? cutoffs.violations : cutoffs.events).getTime());
  // Identifiers from the catalog and matched against TIME_PARTITION above: no user input.
  for (const partition of expired) {
    // One statement, one round trip: the lock timeout is local to its implicit transaction.
    if (partition.isAttached) {
      await db.$executeRaw(
        raw(
          `do $$ begin perform set_config('lock_timeout', '${DROP_LOCK_TIMEOUT}', true); alter table "${partition.parent}" detach partition "${partition.name}"; end $$`,
        ),
      );
    }
  }
  await Promise.all(
    splitBySize(expired, DROP_PARALLELISM).map(async (tables) => {
      for (let i = 0; i < tables.length; i += DROP_BATCH) {
        await db.$executeRaw(
          raw(
            `drop table if exists ${tables
              .slice(i, i + DROP_BATCH)
              .map((p) => `"${p.name}"`)
              .join(", ")}`,
          ),
        );
      }
    }),
  );
  return expired.map((p) => p.name);
}
