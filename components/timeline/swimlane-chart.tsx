"use client";

import { useCallback, useId, useMemo } from "react";
import { ComposedChart, ReferenceArea, XAxis, YAxis, useXAxisScale, useYAxisScale } from "recharts";

import { formatAxisTime, formatDuration, formatExactTime } from "@/lib/board/format";
import { NO_HOLDER_COLOR, SHARED_COLOR, UNOBSERVED_COLOR } from "@/lib/timeline/consumer-colors";
import type { Lane, Marker, Segment, Timeline } from "@/lib/timeline/timeline-types";
import { fitLaneLabels } from "@/lib/timeline/lane-labels";

// The swimlane timeline: one lane per partition, a bar per tenure coloured per consumer,
// markers for changes, deployment bands. It draws what lib/timeline prepared; it decides nothing.

const LANE_HEIGHT = 34;
const AXIS_HEIGHT = 30;
const BAR_PADDING = 6;

type Props = {
  timeline: Timeline;
  colors: Record<string, string>;
  nowMs: number;
  xTicks: number[];
  /** What a lane without a holder is called: "no active consumer" (Pulsar), "free" (a lock). */
  noHolderWords?: string;
};

const ENDING_WORDS: Record<NonNullable<Marker["ending"]>, string> = { RELEASED: "released", EXPIRED: "expired while held", TAKEN_OVER: "taken over" };

function describeSegment(segment: Segment, lane: Lane, noHolderWords: string): string {
  const span = `${formatExactTime(new Date(segment.start).toISOString())} → ${formatExactTime(new Date(segment.end).toISOString())} (${formatDuration(segment.end - segment.start)})`;
  switch (segment.kind) {
    case "held":
      return `${lane.label}: ${segment.holder} held it, ${span}`;
    case "none":
      return `${lane.label}: ${noHolderWords}, ${span}`;
    case "shared":
      return `${lane.label}: shared by its Key_Shared consumers, ${span}`;
    case "unobserved":
      return `${lane.label}: not observed (between polls, or polls failed), ${span}`;
    case "busy":
      return `${lane.label}: ${segment.tenures} short tenures by ${segment.holders?.join(", ")}, ${span}`;
  }
}

function fillOf(segment: Segment, colors: Record<string, string>, patterns: { none: string; unobserved: string; busy: string }): string {
  switch (segment.kind) {
    case "held":
      return colors[segment.holder ?? ""] ?? SHARED_COLOR;
    case "none":
      return `url(#${patterns.none})`;
    case "shared":
      return SHARED_COLOR;
    case "unobserved":
      return `url(#${patterns.unobserved})`;
    case "busy":
      return colors[segment.holder ?? ""] ?? SHARED_COLOR;
  }
}

/** The tenure bars, drawn with the chart's own scales. */
function SegmentLayer({ lanes, colors, noHolderWords }: { lanes: Lane[]; colors: Record<string, string>; noHolderWords: string }) {
  const x = useXAxisScale();
  const y = useYAxisScale();
  const id = useId().replace(/:/g, "");
  if (!x || !y) return null;
  const patterns = { none: `${id}-none`, unobserved: `${id}-unobserved`, busy: `${id}-busy` };
  return (
    <g className="swimlane-segments">
      <defs>
        <pattern id={patterns.none} width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
          <rect width="6" height="6" fill="rgba(248, 81, 73, 0.18)" />
          <rect width="3" height="6" fill={NO_HOLDER_COLOR} />
        </pattern>
        <pattern id={patterns.unobserved} width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
          <rect width="3" height="6" fill={UNOBSERVED_COLOR} />
        </pattern>
      </defs>
      {lanes.map((lane, laneIndex) => {
        const top = Number(y(laneIndex)) + BAR_PADDING / 2;
        const height = Math.max(2, Number(y(laneIndex + 1)) - Number(y(laneIndex)) - BAR_PADDING);
        return (
          <g key={lane.partition}>
            {lane.segments.map((segment) => {
              const left = Number(x(segment.start));
              const width = Math.max(1, Number(x(segment.end)) - left);
              return (
                <rect
                  key={segment.start}
                  x={left}
                  y={top}
                  width={width}
                  height={height}
                  rx={2}
                  fill={fillOf(segment, colors, patterns)}
                  fillOpacity={segment.kind === "busy" ? 0.55 : 1}
                  stroke={segment.kind === "busy" ? "var(--text)" : "none"}
                  strokeDasharray={segment.kind === "busy" ? "2 2" : undefined}
                >
                  <title>{describeSegment(segment, lane, noHolderWords)}</title>
                </rect>
              );
            })}
          </g>
        );
      })}
    </g>
  );
}

function markerFill(marker: Marker): string {
  return marker.kind === "HOLDER_LOST" || marker.ending === "EXPIRED"
    ? NO_HOLDER_COLOR
    : marker.kind === "HIDDEN_FLAP" || marker.kind === "REPLAYED_FLAP"
      ? "#d29922"
      : marker.kind === "CONSUMERS_CHANGED" || marker.kind === "RANGES_MOVED"
        ? "#9aa5b1"
        : "var(--text)";
}

/** A diamond per change (or per bucket of changes), on its lane, with its words on hover. */
function MarkerLayer({ lanes, markers }: { lanes: Lane[]; markers: Marker[] }) {
  const x = useXAxisScale();
  const y = useYAxisScale();
  if (!x || !y) return null;
  const laneIndex = new Map(lanes.map((lane, i) => [lane.partition, i]));
  return (
    <g className="swimlane-markers">
      {markers.map((marker) => {
        const cx = Number(x(marker.at));
        const cy = Number(y((laneIndex.get(marker.partition) ?? 0) + 0.5));
        const size = marker.count > 1 ? 6 : 4.5;
        return (
          <path
            key={`${marker.partition}-${marker.at}-${marker.kind}`}
            d={`M ${cx} ${cy - size} L ${cx + size} ${cy} L ${cx} ${cy + size} L ${cx - size} ${cy} Z`}
            fill={markerFill(marker)}
            stroke="var(--bg)"
            strokeWidth={1}
          >
            <title>{describeMarker(marker, lanes)}</title>
          </path>
        );
      })}
    </g>
  );
}

function describeMarker(marker: Marker, lanes: Lane[]): string {
  const lane = lanes.find((l) => l.partition === marker.partition)?.label ?? String(marker.partition);
  const what =
    marker.count > 1
      ? `${marker.count} changes from here (most alarming: ${marker.kind})`
      : `${marker.kind}: ${marker.fromHolder ?? "nobody"} → ${marker.toHolder ?? "nobody"}${marker.ending ? ` (${ENDING_WORDS[marker.ending]})` : ""}`;
  return `${lane} ${formatExactTime(new Date(marker.at).toISOString())} ${what} (${marker.cause.toLowerCase()}${marker.isDuringGap ? ", during a gap" : ""})`;
}

const MARGIN = { top: 16, right: 16, bottom: 0, left: 0 };
const AXIS_STYLE = { stroke: "var(--muted)", fontSize: 12 };

// Every prop handed to recharts is memoized: recharts 3 keeps chart settings in a store that
// its components sync from props. Bars and markers are plain SVG drawn with the chart's own
// scales (a recharts Scatter of 1,500 points costs seconds of main thread per refresh).
export function SwimlaneChart({ timeline, colors, nowMs, xTicks, noHolderWords = "no active consumer" }: Props) {
  const from = Date.parse(timeline.from);
  const to = Date.parse(timeline.to);
  const { lanes, markers, bands } = timeline;
  const laneCount = Math.max(1, lanes.length);
  const xDomain = useMemo(() => [from, to], [from, to]);
  const yDomain = useMemo(() => [0, laneCount], [laneCount]);
  const yTicks = useMemo(() => lanes.map((_, i) => i + 0.5), [lanes]);
  const minuteNow = Math.floor(nowMs / 60_000) * 60_000;
  const formatX = useCallback((value: number) => formatAxisTime(value, to - from, minuteNow), [from, to, minuteNow]);
  // Room for the lane names (a lock's key is longer than "p3"), abbreviated past a bound: never cut.
  const laneLabels = useMemo(() => fitLaneLabels(lanes.map((lane) => lane.label)), [lanes]);
  const laneLabelWidth = laneLabels.width;
  const formatY = useCallback((value: number) => laneLabels.texts[Math.floor(value)] ?? "", [laneLabels]);
  const bandLabels = useMemo(
    () =>
      bands.map((band) => ({
        value: `${band.service} ${band.version}${band.isInProgress ? " (in progress)" : ""}`,
        position: "insideTopLeft" as const,
        fill: "#f0c674",
        fontSize: 11,
      })),
    [bands],
  );
  const height = laneCount * LANE_HEIGHT + AXIS_HEIGHT + 24;
  const style = useMemo(() => ({ width: "100%", height }), [height]);
  return (
    <div className="chart-frame" data-testid="swimlane-chart">
      <ComposedChart responsive style={style} margin={MARGIN}>
        <XAxis type="number" dataKey="x" domain={xDomain} allowDataOverflow ticks={xTicks} interval={0} tickFormatter={formatX} {...AXIS_STYLE} />
        <YAxis
          type="number"
          dataKey="y"
          domain={yDomain}
          reversed
          allowDataOverflow
          ticks={yTicks}
          interval={0}
          tickFormatter={formatY}
          width={laneLabelWidth}
          {...AXIS_STYLE}
        />
        {bands.map((band, i) => (
          <ReferenceArea
            key={`${band.service}-${band.start}`}
            x1={band.start}
            x2={band.end}
            y1={0}
            y2={laneCount}
            fill="#d29922"
            fillOpacity={0.14}
            stroke="#d29922"
            strokeOpacity={0.6}
            ifOverflow="hidden"
            label={bandLabels[i]}
          />
        ))}
        <SegmentLayer lanes={lanes} colors={colors} noHolderWords={noHolderWords} />
        <MarkerLayer lanes={lanes} markers={markers} />
      </ComposedChart>
    </div>
  );
}
