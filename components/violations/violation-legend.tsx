import {
  DEPLOYMENT_BAND_COLOR,
  DEPLOYMENT_EDGE_COLOR,
  DEPLOYMENT_GRACE_COLOR,
  INSIDE_COLOR,
  LEADER_CHANGE_COLOR,
  OUTSIDE_COLOR,
} from "@/lib/violations/violation-colors";

/** What the chart's colours and marks mean, in words. */
export function ViolationLegend({ mode, serviceColors, showLeaderChanges }: { mode: "classification" | "services"; serviceColors: Record<string, string>; showLeaderChanges: boolean }) {
  return (
    <ul className="vio-legend" aria-label="Legend">
      {mode === "classification" ? (
        <>
          <li>
            <span className="vio-swatch" style={{ background: OUTSIDE_COLOR }} /> Outside rollouts: holder stalled past its lock&apos;s TTL, worker stalled while another took its key, failover overlap or unexplained (per cause above)
          </li>
          <li>
            <span className="vio-swatch" style={{ background: INSIDE_COLOR }} /> Rollout (inside a deployment window)
          </li>
        </>
      ) : (
        Object.entries(serviceColors).map(([service, color]) => (
          <li key={service}>
            <span className="vio-swatch" style={{ background: color }} /> {service}
          </li>
        ))
      )}
      <li>
        <span className="vio-swatch" style={{ background: DEPLOYMENT_BAND_COLOR, border: `1px dashed ${DEPLOYMENT_EDGE_COLOR}` }} /> Deployment
      </li>
      <li>
        <span className="vio-swatch" style={{ background: DEPLOYMENT_GRACE_COLOR, border: `1px solid ${DEPLOYMENT_BAND_COLOR}` }} /> Grace period after it
      </li>
      <li>
        <span className="vio-swatch vio-swatch-unobserved" /> No events reported (unobserved)
      </li>
      {showLeaderChanges ? (
        <li>
          <span className="vio-swatch" style={{ background: LEADER_CHANGE_COLOR, clipPath: "polygon(0 0, 100% 0, 50% 100%)" }} /> Leader changes
        </li>
      ) : null}
    </ul>
  );
}
