import type { HealthVerdict } from "@/lib/health/health-verdict";

/** How many alerts fire, worst severity as its colour and in words for screen readers; nothing when none fires. */
export function FiringCount({ firing }: { firing: HealthVerdict["firing"] }) {
  if (firing.total === 0) return null;
  const severity = firing.critical > 0 ? "critical" : "warning";
  return (
    <span className="nav-count" data-severity={severity} data-testid="alerts-firing-count">
      {firing.total}
      <span className="sr-only"> firing</span>
    </span>
  );
}
