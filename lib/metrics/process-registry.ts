import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

// The metrics a process keeps in memory: its own (CPU, memory, event loop, GC) and what only it
// sees (the web app: ingest requests; the worker: poll cycle and discovery durations). One registry
// per process, on globalThis so that Next's dev reloads do not register the metrics twice.

export type ProcessMetrics = {
  registry: Registry;
  ingestRequests: Counter<"route" | "status">;
  ingestItems: Counter<"route" | "result">;
  pollDuration: Histogram<"cluster" | "kind">;
  discoveryDuration: Histogram<"cluster" | "kind">;
  clusterLeases: Gauge;
  leaseStatements: Counter;
};

const globalForMetrics = globalThis as unknown as { batonProcessMetrics?: ProcessMetrics };

/** Seconds: from a small Redis pipeline to a large Pulsar cluster's cycle. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function getProcessMetrics(): ProcessMetrics {
  globalForMetrics.batonProcessMetrics ??= createProcessMetrics();
  return globalForMetrics.batonProcessMetrics;
}

function createProcessMetrics(): ProcessMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    ingestRequests: new Counter({
      name: "baton_ingest_requests_total",
      help: "Ingest HTTP requests this process answered, by route and status code.",
      labelNames: ["route", "status"],
      registers,
    }),
    ingestItems: new Counter({
      name: "baton_ingest_items_total",
      help: "Items of ingest requests this process handled, by route and result (accepted, duplicate, rejected).",
      labelNames: ["route", "result"],
      registers,
    }),
    pollDuration: new Histogram({
      name: "baton_poll_duration_seconds",
      help: "Duration of one poll cycle: every watched resource of a source read once, with discovery (topic listing, SCAN, znode or key walk) when it is due.",
      labelNames: ["cluster", "kind"],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    discoveryDuration: new Histogram({
      name: "baton_discovery_duration_seconds",
      help: "Duration of one discovery pass of a source (topic listing, SCAN, znode or key walk, Scan of a lock table), part of the poll cycle it ran in.",
      labelNames: ["cluster", "kind"],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    clusterLeases: new Gauge({
      name: "baton_worker_cluster_leases",
      help: "Cluster poller leases this worker replica holds now: the clusters it polls (its share of the fleet's).",
      registers,
    }),
    leaseStatements: new Counter({
      name: "baton_worker_lease_statements_total",
      help: "Statements this worker replica sent on its lock connection: fleet heartbeats, lease renewals, tries of free leases, hand-overs.",
      registers,
    }),
  };
}
