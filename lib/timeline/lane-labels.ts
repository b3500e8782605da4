// The swimlane's lane labels (partitions, lock keys) fit the room the chart gives them: the
// label column grows with the longest label up to a bound, and a label longer than that keeps
// its start and its end around an ellipsis, instead of being cut at the chart's left edge.
// Pure and client-safe.

/** An upper bound on the width of one character of the axis' 12 px sans-serif text. */
const CHAR_PX = 7.2;
const PADDING_PX = 12;
export const MIN_LANE_LABEL_PX = 56;
export const MAX_LANE_LABEL_PX = 260;

export type LaneLabels = { width: number; texts: string[] };

export function fitLaneLabels(labels: readonly string[]): LaneLabels {
  const longest = labels.reduce((max, label) => Math.max(max, label.length), 0);
  const width = Math.min(MAX_LANE_LABEL_PX, Math.max(MIN_LANE_LABEL_PX, Math.ceil(PADDING_PX + longest * CHAR_PX)));
  const maxChars = Math.floor((width - PADDING_PX) / CHAR_PX);
  const head = Math.ceil((maxChars - 1) / 2);
  const tail = maxChars - 1 - head;
  return { width, texts: labels.map((label) => (label.length <= maxChars ? label : `${label.slice(0, head)}…${tail > 0 ? label.slice(-tail) : ""}`)) };
}
