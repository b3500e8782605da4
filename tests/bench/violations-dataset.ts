import pg from "pg";

// The violations benchmark's data, generated inside PostgreSQL (generate_series), so that 10
// million events take minutes rather than the hour an HTTP load would: deployments first, then
// events whose violation rate is higher inside deployment windows (as real counters spike
// during rollouts), then the per-minute rollup built from the events with the same grouping as
// the ingest write path, then holder changes on the subscription partitions the events name.
//
// Loading speed: the event and rollup tables are made UNLOGGED for the load (no WAL for 2 GB of
// rows; reads do not differ), events are inserted on two connections at once, the secondary
// indexes (the migration's own definitions, read from pg_indexes) are dropped before the load and
// built after it, two at a time.

export type DatasetShape = {
  events: number;
  days: number;
  deployments: number;
  services: number;
  /** Subscriptions per service; each topic has PARTITIONS partitions. */
  subscriptionsPerService: number;
  keys: number;
  /** Holder changes per subscription partition over the whole span. */
  changesPerPartition: number;
};

export const PARTITIONS = 8;
const WORKERS_PER_SERVICE = 6;
/** Chance that an event is a violation inside, and outside, a deployment window. */
const VIOLATION_RATE_IN_DEPLOYMENT = 0.15;
const VIOLATION_RATE_OUTSIDE = 0.003;
const GRACE_MINUTES = 5;
const LOAD_CONNECTIONS = 2;

export function serviceName(index: number): string {
  return `svc-${String(index).padStart(2, "0")}`;
}

/** A short description of the shape, stored with the data so that a later run can reuse it. */
export function describeShape(shape: DatasetShape, endMs: number): string {
  return JSON.stringify({ ...shape, endMs, version: 4 });
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("set synchronous_commit = off");
    await client.query("set maintenance_work_mem = '512MB'");
    await client.query("set work_mem = '512MB'");
    return await use(client);
  } finally {
    await client.end();
  }
}

/** The shape the database holds, or null when it holds none (or another). */
export async function readStoredShape(url: string): Promise<string | null> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ shape: string | null }>("select obj_description('exclusivity_event'::regclass, 'pg_class') as shape");
    return rows[0]?.shape ?? null;
  });
}

/** Rebuilds the dataset in a migrated database (its event, rollup, deployment and holder tables are emptied). */
export async function generateDataset(url: string, shape: DatasetShape, endMs: number, log: (line: string) => void): Promise<void> {
  const end = new Date(endMs);
  const spanSeconds = shape.days * 86_400;
  const step = async (client: pg.Client, label: string, sql: string, values: unknown[] = []) => {
    const started = performance.now();
    const result = await client.query(sql, values);
    log(`${label}: ${((performance.now() - started) / 1000).toFixed(1)} s${result.rowCount ? ` (${result.rowCount.toLocaleString("en-US")} rows)` : ""}`);
  };

  const indexes = await withClient(url, async (client) => {
    await client.query("comment on table exclusivity_event is null");
    await client.query("truncate exclusivity_event, violation_minute, deployment, holder_change, held_resource, cluster restart identity cascade");
    // A partitioned table has no storage of its own: its day partitions (created for the span
    // here, as the worker would have) are made unlogged one by one.
    await client.query("select baton_ensure_event_partitions(($1::timestamptz at time zone 'UTC')::date, ($2::timestamptz at time zone 'UTC')::date)", [
      new Date(endMs - spanSeconds * 1000),
      end,
    ]);
    const { rows: leaves } = await client.query<{ name: string }>("select relid::text as name from pg_partition_tree('exclusivity_event') where isleaf");
    for (const leaf of leaves) await client.query(`alter table ${leaf.name} set unlogged`);
    await client.query("alter table violation_minute set unlogged");
    const { rows } = await client.query<{ indexname: string; indexdef: string }>(
      "select indexname, indexdef from pg_indexes where tablename = 'exclusivity_event' and indexname <> 'exclusivity_event_pkey' order by indexname",
    );
    for (const index of rows) await client.query(`drop index ${index.indexname}`);

    await step(
      client,
      "deployments",
      `insert into deployment (external_id, service, version, environment, started_at, finished_at, description)
       select 'bench-' || i, 'svc-' || lpad((i % $2)::text, 2, '0'), 'v' || i, case when i % 5 = 0 then 'staging' else 'production' end,
         s, case when s > $4::timestamptz - interval '1 day' and i % 7 = 0 then null else s + (interval '1 minute' * (2 + floor(random() * 24))) end,
         'benchmark rollout'
       from (select i, $4::timestamptz - (interval '1 second' * floor(random() * $3)) as s from generate_series(1, $1) i) t`,
      [shape.deployments, shape.services, spanSeconds, end],
    );
    // Which service-minutes lie in a deployment window (with the grace period): only to decide
    // how likely a generated event is to be a violation.
    await step(
      client,
      "deployment minutes",
      `create table bench_deploy_minute as
       select distinct service, generate_series(date_trunc('minute', started_at), coalesce(finished_at, $1::timestamptz) + interval '${GRACE_MINUTES} minutes', interval '1 minute') as minute
       from deployment`,
      [end],
    );
    await client.query("analyze bench_deploy_minute");
    return rows;
  });

  // A key hashes to one partition (as a keyed producer would); the partition's holder handles
  // it, and a violation is another worker of the service entering while the holder is inside.
  const chunk = Math.ceil(shape.events / LOAD_CONNECTIONS);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: LOAD_CONNECTIONS }, (_, part) =>
      withClient(url, (client) =>
        client.query(
          `insert into exclusivity_event (event_id, key, counter, is_violation, service, worker, topic, subscription, partition, trace_id, observed_at, source)
           select baton_compact_id('bench-' || g.i), 'user-' || g.k, v.counter, v.counter > 0, g.service,
             g.service || '-w' || ((g.partition + (v.counter > 0)::int) % ${WORKERS_PER_SERVICE}),
             'persistent://acme/bench/' || g.service || '-events' || case when g.i % 2 = 0 then '-partition-' || g.partition else '' end,
             g.service || '-sub-' || g.sub, g.partition,
             case when g.i % 3 = 0 then null else baton_compact_id(to_hex(g.i * 2654435761) || to_hex(g.k)) end,
             g.t, 'HTTP'
           from (
             select i, k, 'svc-' || lpad((i % $2)::text, 2, '0') as service, chr(97 + ((i / $2) % $3)::int) as sub, (k % ${PARTITIONS})::int as partition,
               $5::timestamptz - interval '1 second' * $4 + interval '1 millisecond' * floor((i::float8 / $1) * $4 * 1000) as t
             from (select i, floor($6 * random() ^ 2)::int as k from generate_series($7::bigint, $8::bigint) i) keyed
           ) g
           left join bench_deploy_minute dm on dm.service = g.service and dm.minute = date_trunc('minute', g.t)
           cross join lateral (
             select case when random() < case when dm.minute is null then ${VIOLATION_RATE_OUTSIDE} else ${VIOLATION_RATE_IN_DEPLOYMENT} end then 1 + (random() < 0.1)::int else 0 end as counter
             where g.i > 0
           ) v`,
          [
            shape.events,
            shape.services,
            shape.subscriptionsPerService,
            spanSeconds,
            end,
            shape.keys,
            part * chunk + 1,
            Math.min(shape.events, (part + 1) * chunk),
          ],
        ),
      ),
    ),
  );
  log(`events: ${((performance.now() - started) / 1000).toFixed(1)} s (${shape.events.toLocaleString("en-US")} rows on ${LOAD_CONNECTIONS} connections)`);

  await withClient(url, async (client) => {
    await client.query("drop table bench_deploy_minute");
    await step(
      client,
      "rollup (the ingest path's grouping)",
      // In minute order, as the ingest path writes it while events arrive: the rollup's heap is
      // then in time order, as it is in production (a hash aggregate's order would scatter a
      // week's rows over the whole table).
      `insert into violation_minute (bucket, service, subscription, violations, events)
       select date_trunc('minute', observed_at, 'UTC'), service, coalesce(subscription, ''), count(*) filter (where counter > 0), count(*)
       from exclusivity_event group by 1, 2, 3 order by 1, 2, 3`,
    );
  });

  const indexStarted = performance.now();
  const queue = [...indexes];
  await Promise.all(
    Array.from({ length: LOAD_CONNECTIONS }, () =>
      withClient(url, async (client) => {
        // pg_indexes says "ON ONLY" for a partitioned table's index: without ONLY it is built on every partition.
        for (let index = queue.shift(); index; index = queue.shift()) await client.query(index.indexdef.replace(" ON ONLY ", " ON "));
      }),
    ),
  );
  log(`indexes (${indexes.map((i) => i.indexname).join(", ")}): ${((performance.now() - indexStarted) / 1000).toFixed(1)} s`);

  await withClient(url, async (client) => {
    await client.query("insert into cluster (name, admin_url, poll_interval_ms, updated_at) values ('bench', 'http://127.0.0.1:1', 5000, now())");
    await step(
      client,
      "subscription partitions",
      `insert into held_resource (cluster_id, kind, resource_key, tenant, namespace, topic, partition, subscription, subscription_type, holder)
       select 1, 'PULSAR_SUBSCRIPTION_PARTITION', 'persistent://acme/bench/' || s.service || '-events|' || s.service || '-sub-' || s.sub || '|' || p,
         'acme', 'acme/bench', 'persistent://acme/bench/' || s.service || '-events', p, s.service || '-sub-' || s.sub, 'Failover', s.service || '-w' || (p % ${WORKERS_PER_SERVICE})
       from (select 'svc-' || lpad(i::text, 2, '0') as service, chr(97 + j) as sub from generate_series(0, $1 - 1) i, generate_series(0, $2 - 1) j) s,
         generate_series(0, ${PARTITIONS - 1}) p`,
      [shape.services, shape.subscriptionsPerService],
    );
    await step(
      client,
      "holder changes",
      `insert into holder_change (cluster_id, resource_id, kind, cause, from_holder, to_holder, old_seen_at, new_seen_at, poller_epoch)
       select 1, r.id, 'HOLDER_CHANGED', 'CLIENT', r.holder, r.holder || '-next', c.t - interval '5 seconds', c.t, 1
       from held_resource r,
         lateral (select distinct date_trunc('second', $2::timestamptz - interval '1 second' * floor(random() * $3)) as t from generate_series(1, $1) n where n > -r.id) c`,
      [shape.changesPerPartition, end, spanSeconds],
    );
    // As autovacuum would have: statistics everywhere, the rollup's visibility map for its probes.
    await step(client, "vacuum analyze violation_minute", "vacuum analyze violation_minute");
    await step(client, "analyze", "analyze exclusivity_event, deployment, held_resource, holder_change");
    await client.query(`comment on table exclusivity_event is ${client.escapeLiteral(describeShape(shape, endMs))}`);
  });
}
