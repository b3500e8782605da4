// A subscription's timeline over a range, ready to draw: lanes of tenures (downsampled to the
// drawing budget), change markers (bucketed beyond it), deployment bands and the legend.
// Pure and client-safe; the read model loads the inputs.

import type { DeploymentWindow } from "@/lib/board/board-types";
import { buildLanes } from "@/lib/timeline/build-lanes";
import { bucketMarkers, downsampleLanes, MAX_MARKERS, MAX_SEGMENTS } from "@/lib/timeline/downsample";
import type { DeploymentBand, LaneState, Timeline, TimelineChange } from "@/lib/timeline/timeline-types";

export type PrepareTimelineInput = {
  fromMs: number;
  toMs: number;
  nowMs: number;
  isKeyShared: boolean;
  lanes: LaneState[];
  changes: TimelineChange[];
  deployments: DeploymentWindow[];
  /** Consumers connected now (they belong in the legend even without a change in range). */
  currentConsumers: string[];
  maxSegments?: number;
  maxMarkers?: number;
};

/** Deployments clipped to the range; one still in progress runs until now. */
export function toDeploymentBands(deployments: DeploymentWindow[], fromMs: number, toMs: number, nowMs: number): DeploymentBand[] {
  return deployments
    .map((d) => ({
      service: d.service,
      version: d.version,
      start: Math.max(fromMs, Date.parse(d.startedAt)),
      end: Math.min(toMs, d.finishedAt === null ? nowMs : Date.parse(d.finishedAt)),
      isInProgress: d.finishedAt === null,
    }))
    .filter((band) => band.end > band.start)
    .sort((a, b) => a.start - b.start);
}

export function prepareTimeline(input: PrepareTimelineInput): Timeline {
  const { fromMs, toMs } = input;
  const fullLanes = buildLanes(input);
  const consumers = new Set(input.currentConsumers);
  for (const lane of fullLanes) for (const s of lane.segments) if (s.holder !== null) consumers.add(s.holder);
  for (const c of input.changes) {
    if (c.fromHolder !== null) consumers.add(c.fromHolder);
    if (c.toHolder !== null) consumers.add(c.toHolder);
  }
  const { lanes, isDownsampled } = downsampleLanes(fullLanes, fromMs, toMs, input.maxSegments ?? MAX_SEGMENTS);
  const { markers, isBucketed } = bucketMarkers(input.changes, fromMs, toMs, input.maxMarkers ?? MAX_MARKERS);
  return {
    from: new Date(fromMs).toISOString(),
    to: new Date(toMs).toISOString(),
    lanes,
    markers,
    bands: toDeploymentBands(input.deployments, fromMs, toMs, input.nowMs),
    consumers: [...consumers].sort(),
    changeCount: input.changes.length,
    isDownsampled: isDownsampled || isBucketed,
  };
}
