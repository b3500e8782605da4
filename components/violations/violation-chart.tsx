"use client";

import { useCallback, useMemo, useState } from "react";
import { CartesianGrid, ComposedChart, XAxis, YAxis } from "recharts";

import { BucketLayer } from "@/components/violations/bucket-layer";
import { BucketTooltip } from "@/components/violations/bucket-tooltip";
import { bandsOverlapping, pickTicks, toBandSpans, unobservedSpans, type ChartPoint } from "@/lib/violations/chart-data";
import type { EvenScale } from "@/lib/timeline/even-ticks";
import { formatTick } from "@/lib/violations/format";
import type { DeploymentBand, LeaderChangeMarkers } from "@/lib/violations/violation-types";

// Violations per bucket with deployment bands and, on demand, leader-change markers. Hovering a
// bucket shows its counts, the deployments overlapping it (service, version, environment,
// start and end) and its leader changes. All data comes prepared (lib/violations).

const MARGIN = { top: 18, right: 16, bottom: 0, left: 0 };
const AXIS_STYLE = { stroke: "var(--muted)", fontSize: 12 };
const MAX_TICKS = 8;

export type ViolationChartProps = {
  /** The chart's accessible name. */
  label: string;
  points: readonly ChartPoint[];
  mode: "classification" | "services";
  serviceOrder: readonly string[];
  serviceColors: Record<string, string>;
  deployments: readonly DeploymentBand[];
  /** Only this service's deployments are drawn (split mode); null for all. */
  service: string | null;
  markers: LeaderChangeMarkers | null;
  bucketMs: number;
  timeZone: string;
  nowMs: number;
  /** The Y axis: its top and even ticks (evenTicks). */
  yScale: EvenScale;
  height: number;
};

export function ViolationChart(props: ViolationChartProps) {
  const { points, deployments, service, markers, timeZone, bucketMs, nowMs, yScale } = props;
  const yMax = yScale.max;
  const [hover, setHover] = useState<{ index: number; x: number } | null>(null);
  const fromMs = points[0]?.start ?? 0;
  const toMs = points[points.length - 1]?.end ?? 1;

  // recharts 3 syncs its settings from props into a store: every prop must keep its identity
  // between renders, or it re-renders without end.
  const xDomain = useMemo(() => [fromMs, toMs], [fromMs, toMs]);
  const yDomain = useMemo(() => [0, yMax], [yMax]);
  const ticks = useMemo(() => pickTicks(points, MAX_TICKS), [points]);
  const formatX = useCallback((value: number) => formatTick(value, bucketMs, toMs - fromMs, timeZone), [bucketMs, fromMs, toMs, timeZone]);
  const style = useMemo(() => ({ width: "100%", height: props.height }), [props.height]);
  const data = useMemo(() => points.map((p) => ({ x: p.mid })), [points]);
  const bands = useMemo(() => toBandSpans(deployments, fromMs, toMs, nowMs, service), [deployments, fromMs, toMs, nowMs, service]);
  const unobserved = useMemo(() => unobservedSpans(points), [points]);
  const markerByIndex = useMemo(() => {
    if (!markers) return null;
    const byStart = new Map(markers.buckets.map((b) => [Date.parse(b.start), b]));
    return new Map(points.flatMap((p, i) => (byStart.has(p.start) ? [[i, byStart.get(p.start)!] as const] : [])));
  }, [markers, points]);
  const markerCounts = useMemo(() => (markerByIndex ? new Map([...markerByIndex].map(([i, b]) => [i, b.count])) : null), [markerByIndex]);
  const onHover = useCallback((index: number | null, x: number) => setHover(index === null ? null : { index, x }), []);

  const hovered = hover === null ? undefined : points[hover.index];
  const hoveredMarkers = hover === null ? undefined : markerByIndex?.get(hover.index);
  return (
    <div className="vio-chart" role="img" aria-label={props.label} data-testid="violation-chart" onMouseLeave={() => setHover(null)}>
      <ComposedChart responsive style={style} margin={MARGIN} data={data}>
        <CartesianGrid stroke="var(--border)" vertical={false} />
        <XAxis type="number" dataKey="x" domain={xDomain} allowDataOverflow scale="time" ticks={ticks} tickFormatter={formatX} {...AXIS_STYLE} />
        <YAxis type="number" domain={yDomain} ticks={yScale.ticks} interval={0} allowDecimals={false} allowDataOverflow width={44} {...AXIS_STYLE} />
        <BucketLayer
          points={points}
          mode={props.mode}
          serviceOrder={props.serviceOrder}
          serviceColors={props.serviceColors}
          bands={bands}
          unobserved={unobserved}
          markerCounts={markerCounts}
          yMax={yMax}
          hoveredIndex={hover?.index ?? null}
          onHover={onHover}
        />
      </ComposedChart>
      {hovered && hover ? (
        <div className="vio-tooltip-anchor" style={{ left: hover.x }}>
          <BucketTooltip
            point={hovered}
            deployments={bandsOverlapping(deployments, hovered.start, hovered.end, service)}
            changes={hoveredMarkers?.changes ?? []}
            changeCount={hoveredMarkers?.count ?? 0}
            timeZone={timeZone}
          />
        </div>
      ) : null}
    </div>
  );
}
