import { formatCount, formatDuration, formatMinute } from "@/lib/violations/format";
import { CAUSE_LABEL, CAUSE_MEANING, CAUSES_TO_ACT_ON, type CauseCounts, causePhrase, VIOLATION_CAUSES } from "@/lib/violations/cause-words";
import { CAUSE_COLOR } from "@/lib/violations/violation-colors";
import type { ViolationCounts, ViolationTrend } from "@/lib/violations/violation-types";

const TREND_WORDS: Record<ViolationTrend["direction"], string> = {
  rising: "Rising",
  falling: "Falling",
  steady: "Steady",
  none: "None in either half",
  unobserved: "No trend: part of the range has no reports",
};

/** "a, b or c": the kinds of violation the count takes in, not the causes found. */
function joinAsAlternatives(phrases: readonly string[]): string {
  return phrases.length < 2 ? (phrases[0] ?? "") : `${phrases.slice(0, -1).join(", ")} or ${phrases.at(-1)}`;
}

type CauseSummary = { counts: CauseCounts; isTruncated: boolean; limit: number };

/**
 * The page's lead: how many violations call for action (their causes: two runs at once seen in a
 * lock's records, a stalled lock holder, a stalled worker, or unexplained), then every cause with its count, adding up to the total, and
 * the trend of violations outside rollouts.
 */
export function CauseHeadline({
  totals,
  trend,
  causes,
  causesError,
  timeZone,
}: {
  totals: ViolationCounts;
  trend: ViolationTrend;
  causes: CauseSummary | null;
  causesError: string | null;
  timeZone: string;
}) {
  const toActOn = causes === null ? null : CAUSES_TO_ACT_ON.reduce((sum, cause) => sum + causes.counts[cause], 0);
  const classified = causes === null ? 0 : VIOLATION_CAUSES.reduce((sum, cause) => sum + causes.counts[cause], 0);
  return (
    <section className="panel vio-headline" aria-label="Violations by cause, to act on first">
      <div className="vio-headline-number">
        <span className="vio-headline-count" data-testid="act-count" data-outside={toActOn !== null && toActOn > 0}>
          {toActOn === null ? "…" : formatCount(toActOn)}
        </span>
        <span className="vio-headline-label">
          {toActOn === 1 ? "violation" : "violations"} to act on ({joinAsAlternatives(CAUSES_TO_ACT_ON.map(causePhrase))})
        </span>
      </div>
      {causes !== null ? (
        <ul className="vio-cause-counts" aria-label="Violations per cause">
          {VIOLATION_CAUSES.map((cause) => (
            <li key={cause} title={CAUSE_MEANING[cause]}>
              <span className="vio-swatch" style={{ background: CAUSE_COLOR[cause] }} /> {CAUSE_LABEL[cause]}{" "}
              <strong data-testid={`cause-count-${cause}`}>{formatCount(causes.counts[cause])}</strong>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">{causesError === null ? "Reading each violation's cause…" : `Causes unavailable: ${causesError}`}</p>
      )}
      <p className="muted">
        Together <span data-testid="violation-total">{formatCount(causes === null ? totals.violations : classified)}</span> violations
        {causes?.isTruncated ? `: the latest ${formatCount(causes.limit)} of ${formatCount(totals.violations)} in the range` : ""}; the rollout ones are those
        inside a deployment window of their service (<span data-testid="inside-count">{formatCount(totals.inside)}</span> in the range).
      </p>
      <p className="vio-headline-trend" data-testid="outside-trend" data-direction={trend.direction}>
        Outside rollouts (<span data-testid="outside-count">{formatCount(totals.outside)}</span>): <strong>{TREND_WORDS[trend.direction]}</strong>
        {trend.direction === "unobserved" || trend.direction === "none"
          ? null
          : `, ${formatCount(trend.later.outside)} since ${formatMinute(trend.splitAt, timeZone)} (${formatDuration(trend.later.observedMs)} observed) against ${formatCount(trend.earlier.outside)} in the ${formatDuration(trend.earlier.observedMs)} before.`}
      </p>
    </section>
  );
}
