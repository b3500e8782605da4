// The shape of GET /api/health. Client-safe: the health indicator imports it.

export type HealthStatus = "ok" | "degraded" | "down";

export type ComponentHealth = {
  status: HealthStatus;
  /** Why it is not ok (or a note when it is); never a stack trace. */
  reason: string | null;
  latencyMs: number | null;
};

export type ClusterHealth = ComponentHealth & { name: string; adminUrl: string };

export type HealthReport = {
  status: HealthStatus;
  checkedAt: string;
  database: ComponentHealth & { isEmbedded: boolean };
  clusters: ClusterHealth[];
};

const RANK: Record<HealthStatus, number> = { ok: 0, degraded: 1, down: 2 };

export function worstStatus(statuses: HealthStatus[]): HealthStatus {
  return statuses.reduce<HealthStatus>((worst, status) => (RANK[status] > RANK[worst] ? status : worst), "ok");
}
