// The shape of GET /api/health. Client-safe: the health indicator imports it.

import type { HealthVerdict } from "@/lib/health/health-verdict";
import type { RegisteredKindName } from "@/lib/sources/kind-descriptions";

export type HealthStatus = "ok" | "degraded" | "down";

export type ComponentHealth = {
  status: HealthStatus;
  /** Why it is not ok (or a note when it is); never a stack trace. */
  reason: string | null;
  latencyMs: number | null;
};

/** Baton's own poller of a cluster: who holds the lease, and how its last cycle went. */
export type PollerStatus = {
  pollerId: string | null;
  epoch: number | null;
  acquiredAt: string | null;
  heartbeatAt: string | null;
  lastPollAt: string | null;
  lastCycleMs: number | null;
  lastDurationMs: number | null;
  lastErrorCount: number | null;
  lastError: string | null;
  topicCount: number | null;
  resourceCount: number | null;
  /**
   * Set while the latest cycles failed and read nothing (errors, no resource touched): when the
   * first of them started. A source that does not answer at all; the stale rule alerts on it.
   */
  failingSince: string | null;
};

/** `adminUrl`: where the cluster is reached (an admin URL, a Redis address), never a secret. */
export type ClusterHealth = ComponentHealth & { name: string; kind: RegisteredKindName; adminUrl: string; poller: PollerStatus | null };

/** A worker replica of the fleet (lib/poller/fleet/): the clusters it polls, since when, and its last heartbeat. */
export type WorkerReplicaStatus = {
  replicaId: string;
  /** Its lock connection holds the fleet's membership lock now. */
  isAlive: boolean;
  startedAt: string;
  heartbeatAt: string;
  /** Set when it stopped gracefully (SIGTERM), having handed its clusters over. */
  stoppedAt: string | null;
  clusters: { name: string; since: string }[];
};

export type HealthReport = {
  /** Whether Baton's own parts answer: the database and each cluster's endpoint, and their pollers. */
  status: HealthStatus;
  /** What is wrong with what Baton watches, from the firing alerts: the header and the Alerts menu item show this. */
  verdict: HealthVerdict;
  checkedAt: string;
  database: ComponentHealth & { isEmbedded: boolean };
  clusters: ClusterHealth[];
  /** The worker replicas polling these clusters (or stopped within a day), by id. */
  replicas: WorkerReplicaStatus[];
};

const RANK: Record<HealthStatus, number> = { ok: 0, degraded: 1, down: 2 };

export function worstStatus(statuses: HealthStatus[]): HealthStatus {
  return statuses.reduce<HealthStatus>((worst, status) => (RANK[status] > RANK[worst] ? status : worst), "ok");
}
