import { AlertLegendItems } from "@/components/alerts/alert-legend-items";
import { CAUSE_LABEL } from "@/lib/violations/cause-words";
import { CAUSE_STACK_ORDER } from "@/lib/violations/chart-data";
import { CAUSE_BAR_COLOR, DEPLOYMENT_BAND_COLOR, DEPLOYMENT_EDGE_COLOR, DEPLOYMENT_GRACE_COLOR, LEADER_CHANGE_COLOR } from "@/lib/violations/violation-colors";

/** The label of a bar segment of the classification chart: a cause in the pages' words, or what is not classified. */
function segmentLabel(part: (typeof CAUSE_STACK_ORDER)[number], classifiedLimit: number | null): string {
  if (part !== "unclassified") return CAUSE_LABEL[part];
  return classifiedLimit === null ? "Outside rollouts, not classified yet" : `Outside rollouts, older than the latest ${classifiedLimit} classified`;
}

/**
 * What every colour and mark of the chart means, in words: each cause's bar colour with the
 * headline's words (cause-words.ts), or each service's; the deployment bands, unobserved spans,
 * leader-change markers and the alert strip's bars under the chart.
 */
export function ViolationLegend({
  mode,
  serviceColors,
  showLeaderChanges,
  hasUnclassified,
  classifiedLimit,
  hasAlerts,
}: {
  mode: "classification" | "services";
  serviceColors: Record<string, string>;
  showLeaderChanges: boolean;
  /** Some bar has violations outside rollouts that the classified page does not cover. */
  hasUnclassified: boolean;
  /** How many of the latest violations the page classifies (null: not known yet). */
  classifiedLimit: number | null;
  /** The alert strip shows under the chart. */
  hasAlerts: boolean;
}) {
  return (
    <ul className="vio-legend" aria-label="Legend">
      {mode === "classification"
        ? CAUSE_STACK_ORDER.filter((part) => part !== "unclassified" || hasUnclassified).map((part) => (
            <li key={part} data-testid="legend-cause" data-cause={part}>
              <span className="vio-swatch" style={{ background: CAUSE_BAR_COLOR[part] }} aria-hidden="true" /> {segmentLabel(part, classifiedLimit)}
            </li>
          ))
        : Object.entries(serviceColors).map(([service, color]) => (
            <li key={service}>
              <span className="vio-swatch" style={{ background: color }} aria-hidden="true" /> {service}
            </li>
          ))}
      <li>
        <span className="vio-swatch" style={{ background: DEPLOYMENT_BAND_COLOR, border: `1px dashed ${DEPLOYMENT_EDGE_COLOR}` }} aria-hidden="true" />{" "}
        Deployment
      </li>
      <li>
        <span className="vio-swatch" style={{ background: DEPLOYMENT_GRACE_COLOR, border: `1px solid ${DEPLOYMENT_BAND_COLOR}` }} aria-hidden="true" /> Grace
        period after it
      </li>
      <li>
        <span className="vio-swatch vio-swatch-unobserved" aria-hidden="true" /> No events reported (unobserved)
      </li>
      {showLeaderChanges ? (
        <li>
          <span className="vio-swatch" style={{ background: LEADER_CHANGE_COLOR, clipPath: "polygon(0 0, 100% 0, 50% 100%)" }} aria-hidden="true" /> Leader
          changes
        </li>
      ) : null}
      {hasAlerts ? <AlertLegendItems /> : null}
    </ul>
  );
}
