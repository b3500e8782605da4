// The violations pages' colours. Outside-deployment violations are red (they mean a real
// failure), inside ones amber (rollout noise); services take stable colours by name that stay
// clear of both. Client-safe and pure.

export const OUTSIDE_COLOR = "#f85149";
export const INSIDE_COLOR = "#d29922";
export const DEPLOYMENT_BAND_COLOR = "rgba(90, 169, 255, 0.16)";
export const DEPLOYMENT_GRACE_COLOR = "rgba(90, 169, 255, 0.07)";
export const DEPLOYMENT_EDGE_COLOR = "#5aa9ff";
export const LEADER_CHANGE_COLOR = "#a371f7";
export const UNOBSERVED_FILL = "#4b5563";

/** Per cause (lib/violations/violation-cause.ts): the incidents red, crimson and orange, the noise amber and violet. */
export const CAUSE_COLOR = {
  "two-hands": "#b62324",
  rollout: INSIDE_COLOR,
  "holder-stalled": "#ff8b3d",
  "worker-stalled": "#db61a2",
  "failover-overlap": LEADER_CHANGE_COLOR,
  unexplained: OUTSIDE_COLOR,
} as const;

/** Violations outside rollouts whose cause the page has not classified (beyond its latest ones). */
export const UNCLASSIFIED_COLOR = "#8b949e";

/** Every bar colour of the classification chart: the causes, and what is not classified. */
export const CAUSE_BAR_COLOR = { ...CAUSE_COLOR, unclassified: UNCLASSIFIED_COLOR } as const;

/** Hues for services: no red or amber, so a service is never read as a classification. */
export const SERVICE_PALETTE = ["#5aa9ff", "#3fc1b0", "#a371f7", "#ff7eb6", "#c9d46b", "#7ee0ff", "#8f9cff", "#6fd36f", "#e3b6ff", "#9aa5b1"] as const;

/** FNV-1a: a small, stable string hash. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    value ^= text.charCodeAt(i);
    value = Math.imul(value, 0x01000193);
  }
  return value >>> 0;
}

/**
 * Colours for the services of one chart: each takes its hashed colour unless a service earlier
 * in name order took it, then the next free one; past the palette's size colours repeat. The
 * same names always get the same colours, whatever order they arrive in.
 */
export function assignServiceColors(services: readonly string[]): Record<string, string> {
  const names = [...new Set(services)].sort();
  const taken = new Set<number>();
  const colors: Record<string, string> = {};
  for (const name of names) {
    let slot = hash(name) % SERVICE_PALETTE.length;
    for (let tries = 0; taken.has(slot) && tries < SERVICE_PALETTE.length; tries++) slot = (slot + 1) % SERVICE_PALETTE.length;
    if (taken.size < SERVICE_PALETTE.length) taken.add(slot);
    colors[name] = SERVICE_PALETTE[slot]!;
  }
  return colors;
}
