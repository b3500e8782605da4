import Link from "next/link";

import type { HealthReport } from "@/lib/health/health-report";
import type { HealthVerdict } from "@/lib/health/health-verdict";

/** The clusters Baton's own check cannot reach, with why. */
function unreachableSources(report: HealthReport): string[] {
  return report.clusters.filter((c) => c.status !== "ok").map((c) => `${c.name}: ${c.reason}`);
}

/**
 * The header's verdict (lib/health/health-verdict.ts): what fires now, by severity, linking to
 * the alerts; green only when nothing fires. Stale sources, clusters nobody polls and clusters
 * Baton cannot reach follow, each named.
 */
export function HealthBadge({
  report,
  initialVerdict = null,
  error,
}: {
  report: HealthReport | undefined;
  /** The verdict the page was rendered with: shown until the check's first answer (without the clusters' own checks). */
  initialVerdict?: HealthVerdict | null;
  error: string | null;
}) {
  const verdict = report?.verdict ?? (error ? null : initialVerdict);
  if (!verdict) {
    const text = error ? "Health unknown" : "Checking health";
    return (
      <Link href="/alerts" className="health" data-status="unknown" aria-label={error ? `Health unknown: ${error}` : text}>
        <span className="health-dot" aria-hidden="true" />
        <span data-testid="health-status">{text}</span>
      </Link>
    );
  }
  const detail = verdict.problems.length > 0 ? verdict.problems.join("; ") : "no alert fires and the alert rules are evaluated";
  const unreachable = report ? unreachableSources(report) : [];
  return (
    <div className="health-area">
      <Link href="/alerts" className="health" data-status={verdict.status} title={detail} aria-label={`${verdict.headline}: ${detail}`}>
        <span className="health-dot" aria-hidden="true" />
        <span data-testid="health-status">{verdict.headline}</span>
      </Link>
      {verdict.pending > 0 ? (
        // A board row or a lock card that is already red with nothing firing: its alert is pending.
        <Link
          href="/alerts"
          className="health-chip"
          data-status="warning"
          title={`${verdict.pending} pending: the condition holds, not yet for its rule's "for"; each fires unless it clears first`}
        >
          {verdict.pending} pending
        </Link>
      ) : null}
      {verdict.staleSources.length > 0 ? (
        <Link
          href="/alerts"
          className="health-chip health-chip-list"
          data-status="warning"
          title={`Stale (their data is the last known): ${verdict.staleSources.join(", ")}`}
        >
          Stale: {verdict.staleSources.join(", ")}
        </Link>
      ) : null}
      {verdict.noPoller.length > 0 ? (
        <Link href="/settings/clusters" className="health-chip health-chip-list" data-status="critical" title={`Nobody polls: ${verdict.noPoller.join(", ")}`}>
          No poller: {verdict.noPoller.join(", ")}
        </Link>
      ) : null}
      {unreachable.length > 0 ? (
        <Link
          href="/settings/clusters"
          className="health-chip"
          data-status="warning"
          title={unreachable.join("; ")}
          aria-label={`${unreachable.length} unreachable: ${unreachable.join("; ")}`}
        >
          {unreachable.length} unreachable
        </Link>
      ) : null}
    </div>
  );
}
