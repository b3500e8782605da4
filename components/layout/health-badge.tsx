import Link from "next/link";

import type { HealthReport } from "@/lib/health/health-report";

const WORDS = { ok: "All systems ok", degraded: "Degraded", down: "Down" } as const;

/** The header's health indicator: status in words, the reason in its title and label. */
export function HealthBadge({ report, error }: { report: HealthReport | undefined; error: string | null }) {
  if (!report) {
    const text = error ? "Health unknown" : "Checking health";
    return (
      <Link href="/settings/clusters" className="health" data-status="unknown" aria-label={error ? `Health unknown: ${error}` : text}>
        <span className="health-dot" aria-hidden="true" />
        <span data-testid="health-status">{text}</span>
      </Link>
    );
  }
  const problems = [
    report.database.status !== "ok" ? `database: ${report.database.reason}` : null,
    ...report.clusters.filter((c) => c.status !== "ok").map((c) => `${c.name}: ${c.reason}`),
  ].filter((p): p is string => p !== null);
  const detail = problems.length > 0 ? problems.join("; ") : "database and every cluster answer";
  return (
    <Link href="/settings/clusters" className="health" data-status={report.status} title={detail} aria-label={`${WORDS[report.status]}: ${detail}`}>
      <span className="health-dot" aria-hidden="true" />
      <span data-testid="health-status">{WORDS[report.status]}</span>
    </Link>
  );
}
