import { formatCount, formatDuration, formatMinute } from "@/lib/violations/format";
import type { ViolationCounts, ViolationTrend } from "@/lib/violations/violation-types";

const TREND_WORDS: Record<ViolationTrend["direction"], string> = {
  rising: "Rising",
  falling: "Falling",
  steady: "Steady",
  none: "None in either half",
  unobserved: "No trend: part of the range has no reports",
};

/** The page's lead: violations outside deployments (real exclusivity failures), their trend, and the rollout noise beside them. */
export function OutsideHeadline({ totals, trend, graceMs, timeZone }: { totals: ViolationCounts; trend: ViolationTrend; graceMs: number; timeZone: string }) {
  return (
    <section className="panel vio-headline" aria-label="Outside deployments">
      <div className="vio-headline-number">
        <span className="vio-headline-count" data-testid="outside-count" data-outside={totals.outside > 0}>
          {formatCount(totals.outside)}
        </span>
        <span className="vio-headline-label">violations outside deployments: real exclusivity failures</span>
      </div>
      <p className="vio-headline-trend" data-testid="outside-trend" data-direction={trend.direction}>
        <strong>{TREND_WORDS[trend.direction]}</strong>
        {trend.direction === "unobserved" || trend.direction === "none"
          ? null
          : `: ${formatCount(trend.later.outside)} since ${formatMinute(trend.splitAt, timeZone)} (${formatDuration(trend.later.observedMs)} observed) against ${formatCount(trend.earlier.outside)} in the ${formatDuration(trend.earlier.observedMs)} before.`}
      </p>
      <p className="muted">
        Of <span data-testid="violation-total">{formatCount(totals.violations)}</span> violations,{" "}
        <span data-testid="inside-count">{formatCount(totals.inside)}</span> fell inside a deployment of their service (start to finish plus{" "}
        {formatDuration(graceMs)} of grace): rollout noise, most likely.
      </p>
    </section>
  );
}
