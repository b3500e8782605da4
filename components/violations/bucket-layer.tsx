"use client";

import { useId } from "react";
import { useXAxisScale, useYAxisScale } from "recharts";

import { barSegments, type BandSpan, type ChartPoint } from "@/lib/violations/chart-data";
import {
  CAUSE_BAR_COLOR,
  DEPLOYMENT_BAND_COLOR,
  DEPLOYMENT_EDGE_COLOR,
  DEPLOYMENT_GRACE_COLOR,
  LEADER_CHANGE_COLOR,
  UNOBSERVED_FILL,
} from "@/lib/violations/violation-colors";

// Everything the violations chart draws inside its axes, with the chart's own scales: hatched
// spans where nothing was reported, deployment bands (the rollout, then its grace period), the
// stacked bars (per cause or per service; each exactly as wide as its bucket, so a partial bucket
// is narrower), leader change markers, and one hover target per bucket. It draws what
// lib/violations prepared.

const BAR_GAP_PX = 1;
const MARKER_SIZE = 5;

export type BucketLayerProps = {
  points: readonly ChartPoint[];
  mode: "classification" | "services";
  serviceOrder: readonly string[];
  serviceColors: Record<string, string>;
  bands: readonly BandSpan[];
  unobserved: readonly { start: number; end: number }[];
  /** Leader changes per bucket index (only when shown). */
  markerCounts: ReadonlyMap<number, number> | null;
  yMax: number;
  hoveredIndex: number | null;
  onHover: (index: number | null, x: number) => void;
};

export function BucketLayer(props: BucketLayerProps) {
  const x = useXAxisScale();
  const y = useYAxisScale();
  const id = useId().replace(/:/g, "");
  if (!x || !y) return null;
  const px = (value: number) => Number(x(value));
  const py = (value: number) => Number(y(value));
  const bottom = py(0);
  const top = py(props.yMax);
  const colors = { causes: CAUSE_BAR_COLOR, services: props.serviceColors };
  return (
    <g className="vio-layer">
      <defs>
        <pattern id={`${id}-unobserved`} width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
          <rect width="2" height="6" fill={UNOBSERVED_FILL} />
        </pattern>
      </defs>
      {props.unobserved.map((span) => (
        <rect
          key={`u-${span.start}`}
          data-testid="unobserved-span"
          x={px(span.start)}
          y={top}
          width={Math.max(1, px(span.end) - px(span.start))}
          height={bottom - top}
          fill={`url(#${id}-unobserved)`}
          opacity={0.5}
        />
      ))}
      {props.bands.map((band) => (
        <g key={`b-${band.id}`} data-testid="deployment-band" data-service={band.service}>
          <rect x={px(band.start)} y={top} width={Math.max(1, px(band.activeEnd) - px(band.start))} height={bottom - top} fill={DEPLOYMENT_BAND_COLOR} />
          {band.windowEnd > band.activeEnd ? (
            <rect x={px(band.activeEnd)} y={top} width={px(band.windowEnd) - px(band.activeEnd)} height={bottom - top} fill={DEPLOYMENT_GRACE_COLOR} />
          ) : null}
          <line x1={px(band.start)} x2={px(band.start)} y1={top} y2={bottom} stroke={DEPLOYMENT_EDGE_COLOR} strokeOpacity={0.6} strokeDasharray="3 3" />
        </g>
      ))}
      {props.points.map((point, index) => {
        const left = px(point.start) + BAR_GAP_PX / 2;
        const width = Math.max(1, px(point.end) - px(point.start) - BAR_GAP_PX);
        return (
          <g key={`p-${point.start}`} opacity={props.hoveredIndex === null || props.hoveredIndex === index ? 1 : 0.75}>
            {barSegments(point, props.mode, props.serviceOrder, colors).map((segment) => (
              <rect
                key={segment.label}
                data-testid="bar-segment"
                data-segment={segment.label}
                x={left}
                y={py(segment.y1)}
                width={width}
                height={Math.max(0, py(segment.y0) - py(segment.y1))}
                fill={segment.color}
              />
            ))}
          </g>
        );
      })}
      {props.markerCounts
        ? props.points.map((point, index) => {
            const count = props.markerCounts?.get(index);
            if (!count) return null;
            const cx = px(point.mid);
            return (
              <g key={`m-${point.start}`} data-testid="leader-change-marker">
                <path d={`M ${cx - MARKER_SIZE} ${top} L ${cx + MARKER_SIZE} ${top} L ${cx} ${top + MARKER_SIZE * 1.6} Z`} fill={LEADER_CHANGE_COLOR} />
                {count > 1 ? (
                  <text x={cx} y={top - 3} textAnchor="middle" fontSize={10} fill={LEADER_CHANGE_COLOR}>
                    {count}
                  </text>
                ) : null}
              </g>
            );
          })
        : null}
      {props.points.map((point, index) => (
        // biome-ignore lint/a11y/noStaticElementInteractions: the hover only shows the bucket's tooltip; the table under the chart gives every bucket's figures to the keyboard and screen readers
        <rect
          key={`h-${point.start}`}
          className="vio-hover-target"
          data-start={point.start}
          x={px(point.start)}
          y={top}
          width={Math.max(1, px(point.end) - px(point.start))}
          height={bottom - top}
          fill="transparent"
          onMouseEnter={() => props.onHover(index, px(point.mid))}
          onMouseLeave={() => props.onHover(null, 0)}
        />
      ))}
    </g>
  );
}
