// The one verdict Baton gives about what it watches: what is wrong now. It is judged from the
// alerts the evaluator keeps (which the board's rules raise: lib/alerts/find-conditions.ts), so
// the header, the Alerts menu item, /api/health and /metrics say the same thing as the Alerts
// page and the board rows. Green only when nothing fires and the evaluator is alive to say so.
// Pure and client-safe.

import type { AlertRuleName, AlertSeverity } from "@/lib/alerts/alert-config";
import { formatDuration } from "@/lib/board/format";

/** "unknown": Baton cannot judge (its database is down, or nobody evaluates the rules). */
export type VerdictStatus = "ok" | "warning" | "critical" | "unknown";

/** One firing alert, as much of it as the verdict needs. */
export type FiringAlert = { rule: AlertRuleName; severity: AlertSeverity; cluster: string | null; summary: string };

export type HealthVerdict = {
  status: VerdictStatus;
  /** Firing alerts by severity, and in all. */
  firing: { critical: number; warning: number; total: number };
  /** Alerts whose condition holds but whose `for` has not passed yet. */
  pending: number;
  /** Clusters with a firing `stale` alert: their data is the last known. */
  staleSources: string[];
  /** Clusters with a firing `no-poller` alert: nobody polls them. */
  noPoller: string[];
  /** When the evaluator last said it was alive (null: never). */
  evaluatorHeartbeatAt: string | null;
  /** What is wrong now, in one short line ("2 critical · 1 warning firing"; "Nothing firing"). */
  headline: string;
  /** Each problem in a sentence, worst first: the header's title, the report's reasons. */
  problems: string[];
  judgedAt: string;
};

export type VerdictInput = {
  nowMs: number;
  database: { isReachable: boolean; reason: string | null };
  /** Why the alerts could not be read although the database answered (null: they were read). */
  readError?: string | null;
  /** The firing alerts (empty when the database is unreachable). */
  firing: FiringAlert[];
  pending: number;
  evaluatorHeartbeatMs: number | null;
};

/**
 * The evaluator renews its lease every 2 s; silence past this means no Baton worker evaluates the
 * rules (the worker is down), and "nothing firing" would then be a claim nobody checked.
 */
export const EVALUATOR_SILENT_MS = 30_000;

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
const distinct = (names: (string | null)[]) => [...new Set(names.filter((n): n is string => n !== null))].sort();

export function judgeHealth(input: VerdictInput): HealthVerdict {
  const judgedAt = new Date(input.nowMs).toISOString();
  const evaluatorHeartbeatAt = input.evaluatorHeartbeatMs === null ? null : new Date(input.evaluatorHeartbeatMs).toISOString();
  const none = { critical: 0, warning: 0, total: 0 };
  if (!input.database.isReachable) {
    const problem = `Baton's database does not answer (${input.database.reason ?? "no reason given"}): nothing can be judged`;
    return {
      status: "unknown",
      firing: none,
      pending: 0,
      staleSources: [],
      noPoller: [],
      evaluatorHeartbeatAt,
      headline: "Database down",
      problems: [problem],
      judgedAt,
    };
  }
  if (input.readError) {
    const problem = `the alerts could not be read (${input.readError}): nothing can be judged`;
    return {
      status: "unknown",
      firing: none,
      pending: 0,
      staleSources: [],
      noPoller: [],
      evaluatorHeartbeatAt,
      headline: "Health unknown",
      problems: [problem],
      judgedAt,
    };
  }

  const critical = input.firing.filter((a) => a.severity === "critical");
  const warning = input.firing.filter((a) => a.severity === "warning");
  const firing = { critical: critical.length, warning: warning.length, total: input.firing.length };
  const staleSources = distinct(input.firing.filter((a) => a.rule === "stale").map((a) => a.cluster));
  const noPoller = distinct(input.firing.filter((a) => a.rule === "no-poller").map((a) => a.cluster));
  const silentMs = input.evaluatorHeartbeatMs === null ? null : input.nowMs - input.evaluatorHeartbeatMs;
  const isEvaluatorSilent = silentMs === null || silentMs > EVALUATOR_SILENT_MS;

  const problems: string[] = [];
  if (isEvaluatorSilent) {
    problems.push(
      silentMs === null
        ? "no Baton worker has ever evaluated the alert rules: is the worker running?"
        : `no Baton worker has evaluated the alert rules for ${formatDuration(silentMs)}: is the worker running? What is shown may be out of date`,
    );
  }
  for (const alert of [...critical, ...warning]) problems.push(`${alert.severity}: ${alert.summary}`);
  if (input.pending > 0) problems.push(`${plural(input.pending, "alert", "alerts")} pending (the condition holds, not yet for its rule's "for")`);

  const parts: string[] = [];
  if (firing.critical > 0) parts.push(`${firing.critical} critical`);
  if (firing.warning > 0) parts.push(`${firing.warning} warning`);
  const firingWords = parts.length > 0 ? `${parts.join(" · ")} firing` : null;
  const headline = isEvaluatorSilent ? (firingWords ? `No worker · ${firingWords}` : "No worker") : (firingWords ?? "Nothing firing");
  // Critical outranks unknown (as on the board); a silent evaluator outranks a warning.
  const status: VerdictStatus = firing.critical > 0 ? "critical" : isEvaluatorSilent ? "unknown" : firing.warning > 0 ? "warning" : "ok";
  return { status, firing, pending: input.pending, staleSources, noPoller, evaluatorHeartbeatAt, headline, problems, judgedAt };
}
