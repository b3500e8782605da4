// What /metrics says, as plain data read from the database at scrape time: every web replica
// reads the same rows, so any replica answers the same. Client-safe (types only).

/** One watched resource and its current holder. */
export type ResourceHolder = { cluster: string; kind: string; resource: string; holder: string };

/** Resources of one cluster and kind in one state: held, free (nobody holds it), or stale (observations failing). */
export type ResourceCount = { cluster: string; kind: string; state: "held" | "free" | "stale"; count: number };

/** Stored holder-change rows of one cluster, change kind and cause; `expired` of them ended a hold by expiry. */
export type ChangeCount = { cluster: string; kind: string; cause: string; count: number; expired: number };

/** One configured source (cluster) and how its poller is doing. */
export type SourceState = {
  cluster: string;
  kind: string;
  pollIntervalMs: number;
  /** Epoch seconds of the last finished poll cycle, or null before the first. */
  lastPollSeconds: number | null;
  lastPollErrors: number | null;
  lastPollDurationMs: number | null;
  pollerEpoch: number | null;
  /** Epoch seconds of the poller lease's last heartbeat, or null with no poller. */
  heartbeatSeconds: number | null;
  staleResources: number;
};

/** Counter events and violations of one service, inside or outside a deployment of that service. */
export type ServiceEvents = { service: string; isInsideDeployment: boolean; events: number; violations: number };

export type MetricSnapshot = {
  /** Epoch seconds of the scrape, the "now" every up/stale judgement uses. */
  nowSeconds: number;
  /** Null when per-resource series are dropped (more resources than the configured maximum). */
  holders: ResourceHolder[] | null;
  resources: ResourceCount[];
  changes: ChangeCount[];
  sources: SourceState[];
  services: ServiceEvents[];
  deadLetters: { source: string; count: number }[];
  /** The per-resource limit in force, and whether it dropped the holders. */
  maxResourceSeries: number;
};
