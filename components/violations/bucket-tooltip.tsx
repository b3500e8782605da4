import { CAUSE_LABEL } from "@/lib/violations/cause-words";
import { CAUSE_STACK_ORDER, type ChartPoint } from "@/lib/violations/chart-data";
import { formatCount, formatInstant, formatMinute } from "@/lib/violations/format";
import type { DeploymentBand, LeaderChangeMarker } from "@/lib/violations/violation-types";

/** What one bucket holds: its counts, the deployments overlapping it, its leader changes. */
export function BucketTooltip({
  point,
  deployments,
  changes,
  changeCount,
  timeZone,
}: {
  point: ChartPoint;
  deployments: readonly DeploymentBand[];
  changes: readonly LeaderChangeMarker[];
  changeCount: number;
  timeZone: string;
}) {
  const services = Object.entries(point.byService)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  return (
    <div className="vio-tooltip" role="tooltip" data-testid="bucket-tooltip">
      <div className="vio-tooltip-title">
        {formatMinute(point.start, timeZone)} – {formatMinute(point.end, timeZone)}
        {point.isPartial ? <span className="muted"> (partial)</span> : null}
      </div>
      {point.counts === null ? (
        <div className="muted">No event reported: unobserved, not quiet.</div>
      ) : (
        <dl className="vio-tooltip-counts">
          {point.causes === null ? (
            <>
              <dt>Outside rollouts</dt>
              <dd className="vio-outside">{formatCount(point.counts.outside)}</dd>
              <dt>Rollout</dt>
              <dd className="vio-inside">{formatCount(point.counts.inside)}</dd>
            </>
          ) : (
            [...CAUSE_STACK_ORDER].reverse().flatMap((part) => {
              const count = point.causes?.[part] ?? 0;
              if (count === 0) return [];
              return [
                <dt key={`t-${part}`}>{part === "unclassified" ? "Outside rollouts, not classified" : CAUSE_LABEL[part]}</dt>,
                <dd key={`d-${part}`} className={part === "rollout" ? "vio-inside" : "vio-outside"} data-cause={part}>
                  {formatCount(count)}
                </dd>,
              ];
            })
          )}
          {point.increments === null ? null : (
            <>
              <dt>Increments reported</dt>
              <dd>{formatCount(point.increments)}</dd>
            </>
          )}
        </dl>
      )}
      {services.length > 1 ? <div className="vio-small">By service: {services.map(([name, n]) => `${name} ${formatCount(n)}`).join(", ")}</div> : null}
      {deployments.length > 0 ? (
        <ul className="vio-tooltip-list">
          {deployments.slice(0, 6).map((d) => (
            <li key={d.id}>
              <strong>
                {d.service} {d.version}
              </strong>{" "}
              ({d.environment}): {formatInstant(d.startedAt, timeZone)} → {d.finishedAt === null ? "in progress" : formatInstant(d.finishedAt, timeZone)}
            </li>
          ))}
          {deployments.length > 6 ? <li className="muted">and {deployments.length - 6} more deployments</li> : null}
        </ul>
      ) : null}
      {changeCount > 0 ? (
        <ul className="vio-tooltip-list">
          {changes.map((c) => (
            <li key={c.id}>
              Leader change {c.subscription} {c.partition < 0 ? "" : `p${c.partition}`}: {c.fromHolder ?? "none"} → {c.toHolder ?? "none"} at{" "}
              {formatInstant(c.newSeenAt, timeZone)}
            </li>
          ))}
          {changeCount > changes.length ? <li className="muted">and {changeCount - changes.length} more leader changes</li> : null}
        </ul>
      ) : null}
    </div>
  );
}
