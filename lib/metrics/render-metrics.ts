import { Counter, Gauge, Registry } from "prom-client";

import type { MetricSnapshot } from "@/lib/metrics/metric-snapshot";

/** A source is up while its last poll finished without errors within this many poll intervals. */
export const UP_WITHIN_INTERVALS = 3;
/** ...and never less than this long, so a fast poll interval does not flap on one slow cycle. */
export const UP_MIN_WINDOW_SECONDS = 30;

const HOLDER_INFO_HELP = "1 for each held resource, with its current holder as a label (absent while nobody holds it).";

/** A label value as the text exposition format escapes it: backslash, double quote and newline. */
function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/**
 * baton_resource_holder_info in the text exposition format, written directly: at 10,000 resources
 * it is nearly every series of a scrape, and prom-client's label bookkeeping took 25-60 ms of a
 * 100 ms budget for it (a few ms here).
 */
export function renderHolderInfo(snapshot: Pick<MetricSnapshot, "holders">): string {
  const lines = [`# HELP baton_resource_holder_info ${HOLDER_INFO_HELP}`, "# TYPE baton_resource_holder_info gauge"];
  for (const row of snapshot.holders ?? []) {
    lines.push(
      `baton_resource_holder_info{cluster="${escapeLabelValue(row.cluster)}",kind="${escapeLabelValue(row.kind)}",resource="${escapeLabelValue(row.resource)}",holder="${escapeLabelValue(row.holder)}"} 1`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Turns a snapshot, all but the per-resource holders (renderHolderInfo), into Prometheus metrics on a registry of its own (one per scrape, so two
 * concurrent scrapes never share label sets). Pure apart from prom-client's in-memory objects.
 *
 * Counters here are counts of stored rows that Baton never deletes (holder changes, the
 * per-minute rollup, dead letters): they only grow, as Prometheus counters must.
 */
export function buildSnapshotRegistry(snapshot: MetricSnapshot): Registry {
  const registry = new Registry();
  const reg = [registry];

  new Gauge({
    name: "baton_metrics_resource_series_dropped",
    help: "1 when baton_resource_holder_info is left out because more resources are held than BATON_METRICS_MAX_RESOURCES.",
    registers: reg,
  }).set(snapshot.holders === null ? 1 : 0);

  const resources = new Gauge({
    name: "baton_resources",
    help: "Watched resources by cluster, kind and state (held, free, stale; stale ones are also held or free).",
    labelNames: ["cluster", "kind", "state"],
    registers: reg,
  });
  for (const row of snapshot.resources) resources.set({ cluster: row.cluster, kind: row.kind, state: row.state }, row.count);

  const changes = new Counter({
    name: "baton_holder_changes_total",
    help: "Holder changes Baton recorded, by cluster, change kind and cause.",
    labelNames: ["cluster", "kind", "cause"],
    registers: reg,
  });
  const expirations = new Counter({
    name: "baton_hold_expirations_total",
    help: "Holds that ended by expiring while held (the holder stalled past its TTL or lease).",
    labelNames: ["cluster"],
    registers: reg,
  });
  const expiredByCluster = new Map<string, number>();
  for (const row of snapshot.changes) {
    changes.inc({ cluster: row.cluster, kind: row.kind, cause: row.cause }, row.count);
    expiredByCluster.set(row.cluster, (expiredByCluster.get(row.cluster) ?? 0) + row.expired);
  }
  for (const [cluster, count] of expiredByCluster) expirations.inc({ cluster }, count);

  const up = new Gauge({
    name: "baton_source_up",
    help: "1 while the source's last poll finished without errors recently (within 3 poll intervals, at least 30 s).",
    labelNames: ["cluster", "kind"],
    registers: reg,
  });
  const lastPoll = new Gauge({
    name: "baton_source_last_poll_timestamp_seconds",
    help: "When the source's last poll cycle finished.",
    labelNames: ["cluster", "kind"],
    registers: reg,
  });
  const lastDuration = new Gauge({
    name: "baton_source_last_poll_duration_seconds",
    help: "How long the source's last poll cycle took.",
    labelNames: ["cluster", "kind"],
    registers: reg,
  });
  const stale = new Gauge({
    name: "baton_source_stale_resources",
    help: "Resources of the source whose observations are failing (their data is the last known).",
    labelNames: ["cluster", "kind"],
    registers: reg,
  });
  const epoch = new Gauge({
    name: "baton_source_poller_epoch",
    help: "The poller lease's epoch: it grows by one at every takeover.",
    labelNames: ["cluster", "kind"],
    registers: reg,
  });
  const heartbeat = new Gauge({
    name: "baton_source_poller_heartbeat_timestamp_seconds",
    help: "The poller lease's last heartbeat.",
    labelNames: ["cluster", "kind"],
    registers: reg,
  });
  for (const source of snapshot.sources) {
    const labels = { cluster: source.cluster, kind: source.kind };
    up.set(labels, isSourceUp(source, snapshot.nowSeconds) ? 1 : 0);
    stale.set(labels, source.staleResources);
    if (source.lastPollSeconds !== null) lastPoll.set(labels, source.lastPollSeconds);
    if (source.lastPollDurationMs !== null) lastDuration.set(labels, source.lastPollDurationMs / 1000);
    if (source.pollerEpoch !== null) epoch.set(labels, source.pollerEpoch);
    if (source.heartbeatSeconds !== null) heartbeat.set(labels, source.heartbeatSeconds);
  }

  const events = new Counter({
    name: "baton_counter_events_total",
    help: "Counter events (entries into a key) services reported, by service and whether a deployment of the service covered the minute.",
    labelNames: ["service", "deployment"],
    registers: reg,
  });
  const violations = new Counter({
    name: "baton_violations_total",
    help: "Violations (a worker entered a key another worker was inside), by service and whether a deployment of the service covered the minute.",
    labelNames: ["service", "deployment"],
    registers: reg,
  });
  for (const row of snapshot.services) {
    const labels = { service: row.service, deployment: row.isInsideDeployment ? "inside" : "outside" };
    events.inc(labels, row.events);
    violations.inc(labels, row.violations);
  }

  const deadLetters = new Counter({
    name: "baton_ingest_dead_letters_total",
    help: "Ingest topic messages that could not be used (not JSON, or no valid event), kept in the dead_letter table.",
    labelNames: ["source"],
    registers: reg,
  });
  for (const row of snapshot.deadLetters) deadLetters.inc({ source: row.source }, row.count);
  return registry;
}

export function isSourceUp(source: MetricSnapshot["sources"][number], nowSeconds: number): boolean {
  if (source.lastPollSeconds === null || (source.lastPollErrors ?? 0) > 0) return false;
  const windowSeconds = Math.max(UP_MIN_WINDOW_SECONDS, (UP_WITHIN_INTERVALS * source.pollIntervalMs) / 1000);
  return nowSeconds - source.lastPollSeconds <= windowSeconds;
}
