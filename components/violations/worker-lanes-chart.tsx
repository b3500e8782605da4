"use client";

import { useCallback, useMemo } from "react";
import { ComposedChart, XAxis, YAxis, useXAxisScale, useYAxisScale } from "recharts";

import { formatInstant, formatTick } from "@/lib/violations/format";
import { DEPLOYMENT_BAND_COLOR, DEPLOYMENT_GRACE_COLOR, LEADER_CHANGE_COLOR, OUTSIDE_COLOR } from "@/lib/violations/violation-colors";
import type { WorkerLanes } from "@/lib/violations/worker-lanes";

// The drill-down's lanes: who entered the key when. One lane per worker, a dot per entry (red:
// the counter saw another worker inside), leader changes as purple spans over every lane,
// deployments as bands. Draws what buildWorkerLanes prepared.

const LANE_HEIGHT = 30;
const AXIS_HEIGHT = 30;
const MARGIN = { top: 8, right: 16, bottom: 0, left: 0 };
const AXIS_STYLE = { stroke: "var(--muted)", fontSize: 12 };

function LanesLayer({ lanes, timeZone }: { lanes: WorkerLanes; timeZone: string }) {
  const x = useXAxisScale();
  const y = useYAxisScale();
  if (!x || !y) return null;
  const px = (value: number) => Number(x(value));
  const top = Number(y(0));
  const bottom = Number(y(lanes.workers.length));
  return (
    <g className="vio-lanes-layer">
      {lanes.bands.map((band) => (
        <g key={band.id} data-testid="drilldown-deployment-band">
          <rect x={px(band.start)} y={top} width={Math.max(1, px(band.activeEnd) - px(band.start))} height={bottom - top} fill={DEPLOYMENT_BAND_COLOR} />
          {band.windowEnd > band.activeEnd ? (
            <rect x={px(band.activeEnd)} y={top} width={px(band.windowEnd) - px(band.activeEnd)} height={bottom - top} fill={DEPLOYMENT_GRACE_COLOR} />
          ) : null}
        </g>
      ))}
      {lanes.changes.map((change) => (
        <rect
          key={change.id}
          data-testid="drilldown-leader-change"
          x={px(change.start) - 1}
          y={top}
          width={Math.max(2, px(change.end) - px(change.start) + 2)}
          height={bottom - top}
          fill={LEADER_CHANGE_COLOR}
          fillOpacity={0.45}
        >
          <title>{`Leader change ${change.label}`}</title>
        </rect>
      ))}
      {lanes.workers.map((worker, lane) => (
        <line key={worker} x1={px(lanes.fromMs)} x2={px(lanes.toMs)} y1={Number(y(lane + 0.5))} y2={Number(y(lane + 0.5))} stroke="var(--border)" />
      ))}
      {lanes.dots.map((dot) => (
        <circle
          key={dot.eventId}
          data-testid="lane-dot"
          data-violation={dot.isViolation}
          cx={px(dot.at)}
          cy={Number(y(dot.lane + 0.5))}
          r={dot.isViolation ? 6 : 4}
          fill={dot.isViolation ? OUTSIDE_COLOR : "#9aa5b1"}
          stroke={dot.isFocus ? "var(--text)" : "var(--bg)"}
          strokeWidth={dot.isFocus ? 2.5 : 1}
        >
          <title>{`${lanes.workers[dot.lane]} entered at ${formatInstant(dot.at, timeZone)}, counter ${dot.counter}${dot.isViolation ? " (violation)" : ""}`}</title>
        </circle>
      ))}
    </g>
  );
}

export function WorkerLanesChart({ lanes, timeZone }: { lanes: WorkerLanes; timeZone: string }) {
  const laneCount = Math.max(1, lanes.workers.length);
  const xDomain = useMemo(() => [lanes.fromMs, lanes.toMs], [lanes.fromMs, lanes.toMs]);
  const yDomain = useMemo(() => [0, laneCount], [laneCount]);
  const yTicks = useMemo(() => lanes.workers.map((_, i) => i + 0.5), [lanes.workers]);
  const span = lanes.toMs - lanes.fromMs;
  const formatX = useCallback(
    (value: number) => (span < 600_000 ? formatInstant(value, timeZone).slice(11, 19) : formatTick(value, 60_000, span, timeZone)),
    [span, timeZone],
  );
  const formatY = useCallback((value: number) => lanes.workers[Math.floor(value)] ?? "", [lanes.workers]);
  const style = useMemo(() => ({ width: "100%", height: laneCount * LANE_HEIGHT + AXIS_HEIGHT + 16 }), [laneCount]);
  const data = useMemo(() => lanes.dots.map((d) => ({ x: d.at })), [lanes.dots]);
  return (
    <div
      className="vio-chart"
      role="img"
      aria-label={`Entries into the key by ${lanes.workers.length} workers, with leader changes and deployments`}
      data-testid="worker-lanes"
    >
      <ComposedChart responsive style={style} margin={MARGIN} data={data}>
        <XAxis type="number" dataKey="x" domain={xDomain} allowDataOverflow scale="time" tickCount={7} tickFormatter={formatX} {...AXIS_STYLE} />
        <YAxis type="number" domain={yDomain} reversed allowDataOverflow ticks={yTicks} interval={0} tickFormatter={formatY} width={150} {...AXIS_STYLE} />
        <LanesLayer lanes={lanes} timeZone={timeZone} />
      </ComposedChart>
    </div>
  );
}
