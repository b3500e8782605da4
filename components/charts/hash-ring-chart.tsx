"use client";

import { Cell, Pie, PieChart, Tooltip } from "recharts";

import { formatShare } from "@/lib/board/format";
import { NO_HOLDER_COLOR } from "@/lib/timeline/consumer-colors";
import type { RingSlice } from "@/lib/timeline/hash-ring";

// The Key_Shared hash space as a ring: each slice an owner's stretch of hashes; gaps (no owner)
// and overlaps (two owners) stand out. It draws what lib/timeline/hash-ring prepared.

const OVERLAP_COLOR = "#ff4dd2";

type Datum = { name: string; value: number; color: string; slice: RingSlice };

function describe(slice: RingSlice, space: number): string {
  const owners = slice.owners.length === 0 ? "no consumer (gap)" : slice.owners.length > 1 ? `${slice.owners.join(" and ")} (overlap)` : slice.owners[0];
  return `hashes ${slice.start}–${slice.end} (${formatShare(slice.size / space)}): ${owners}`;
}

export function HashRingChart({ slices, space, colors, label }: { slices: RingSlice[]; space: number; colors: Record<string, string>; label: string }) {
  const data: Datum[] = slices.map((slice) => ({
    name: describe(slice, space),
    value: slice.size,
    color: slice.owners.length === 0 ? NO_HOLDER_COLOR : slice.owners.length > 1 ? OVERLAP_COLOR : (colors[slice.owners[0]!] ?? "#64748b"),
    slice,
  }));
  return (
    <figure className="ring-item" aria-label={label}>
      <PieChart width={200} height={200}>
        <Pie
          data={data}
          dataKey="value"
          nameKey="name"
          innerRadius={58}
          outerRadius={88}
          startAngle={90}
          endAngle={-270}
          isAnimationActive={false}
          stroke="var(--bg)"
          strokeWidth={1}
        >
          {data.map((d) => (
            <Cell key={`${d.slice.start}`} fill={d.color} />
          ))}
        </Pie>
        <Tooltip
          isAnimationActive={false}
          content={({ active, payload }) => (active && payload?.[0] ? <div className="chart-tooltip">{String(payload[0].name)}</div> : null)}
        />
      </PieChart>
      <figcaption className="muted small">{label}</figcaption>
    </figure>
  );
}
