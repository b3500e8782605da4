import type { HealthStatus } from "@/lib/health/health-report";

const LABEL: Record<HealthStatus, string> = { ok: "OK", degraded: "Degraded", down: "Down" };

/** A status in words and colour: the colour is never the only signal. */
export function StatusPill({ status }: { status: HealthStatus }) {
  return (
    <span className="status-pill" data-status={status}>
      {LABEL[status]}
    </span>
  );
}
