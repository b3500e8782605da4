// The range a timeline covers: a preset ending now (1 h, 6 h, 24 h, 7 d) or a custom one, as
// the subscription page's URL holds it. Pure and client-safe.

export const RANGE_PRESETS = { "1h": 3_600_000, "6h": 21_600_000, "24h": 86_400_000, "7d": 604_800_000 } as const;
export type RangePreset = keyof typeof RANGE_PRESETS;
/** A preset in words: "in the last 6 hours". */
export const RANGE_PRESET_WORDS: Record<RangePreset, string> = { "1h": "hour", "6h": "6 hours", "24h": "24 hours", "7d": "7 days" };
export const DEFAULT_PRESET: RangePreset = "6h";
/** The longest range a timeline may cover. */
export const MAX_RANGE_MS = 31 * 86_400_000;

/**
 * A preset ending now; a fixed custom range; or "since": a live range that opened at `from`
 * (a page's default when its data is younger than LONGEST_FITTED_PRESET, so that it does not
 * open on hours of "not observed": see fitRangeToData).
 */
export type RangeSelection = { preset: RangePreset } | { preset: "custom"; from: string; to: string } | { preset: "since"; from: string };

export function isRangePreset(value: string): value is RangePreset {
  return Object.hasOwn(RANGE_PRESETS, value);
}

type ParamSource = URLSearchParams | Record<string, string | string[] | undefined>;

function read(params: ParamSource, name: string): string | undefined {
  const value = params instanceof URLSearchParams ? (params.get(name) ?? undefined) : params[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `range=1h|6h|24h|7d`, or `range=custom&from=...&to=...`; anything unreadable is the default. */
export function readRangeSelection(params: ParamSource): RangeSelection {
  const range = read(params, "range");
  if (range === "since") {
    const from = read(params, "from");
    if (from && !Number.isNaN(Date.parse(from))) return { preset: "since", from: new Date(from).toISOString() };
  }
  if (range === "custom") {
    const from = read(params, "from");
    const to = read(params, "to");
    if (from && to && !Number.isNaN(Date.parse(from)) && !Number.isNaN(Date.parse(to)) && Date.parse(from) < Date.parse(to)) {
      return { preset: "custom", from: new Date(from).toISOString(), to: new Date(to).toISOString() };
    }
  }
  return { preset: range && isRangePreset(range) ? range : DEFAULT_PRESET };
}

export function writeRangeSelection(selection: RangeSelection): Record<string, string> {
  if (selection.preset === "since") return { range: "since", from: selection.from };
  return selection.preset === "custom" ? { range: "custom", from: selection.from, to: selection.to } : { range: selection.preset };
}

/** The range in epoch ms: presets end now; a custom range longer than the maximum keeps its end. */
export function resolveRange(selection: RangeSelection, nowMs: number): { fromMs: number; toMs: number } {
  if (selection.preset === "since") return { fromMs: Math.max(Math.min(Date.parse(selection.from), nowMs - 1), nowMs - MAX_RANGE_MS), toMs: nowMs };
  if (selection.preset !== "custom") return { fromMs: nowMs - RANGE_PRESETS[selection.preset], toMs: nowMs };
  const toMs = Date.parse(selection.to);
  return { fromMs: Math.max(Date.parse(selection.from), toMs - MAX_RANGE_MS), toMs };
}

/** A preset follows "now" and keeps refreshing; a custom range is fixed. */
export function isLiveRange(selection: RangeSelection): boolean {
  return selection.preset !== "custom";
}

/** Room left before the oldest data point: a tenth of the data's age, at least this. */
const OLDEST_DATA_MARGIN_MS = 30_000;
/** The longest range a page opens on by itself: older data is one click away (7 d). */
export const LONGEST_FITTED_PRESET: RangePreset = "24h";

/**
 * The one rule by which every page (subscription, lock, violations, drill-down, deployments)
 * picks its range when the URL names none: from just before the oldest data point it shows to
 * now, so that what is known fills the chart; when the data is older than the longest fitted
 * preset, that preset; with no data at all, the default preset.
 */
export function fitRangeToData(oldestMs: number | null, nowMs: number): RangeSelection {
  if (oldestMs === null) return { preset: DEFAULT_PRESET };
  // Data stamped ahead of this clock counts as data of now.
  const start = Math.min(oldestMs, nowMs);
  const age = nowMs - start;
  const margin = Math.max(OLDEST_DATA_MARGIN_MS, Math.round(age / 10));
  if (age + margin >= RANGE_PRESETS[LONGEST_FITTED_PRESET]) return { preset: LONGEST_FITTED_PRESET };
  return { preset: "since", from: new Date(start - margin).toISOString() };
}

/** Whether the URL names a range at all (else the page fits one to what is known). */
export function hasRangeParam(params: ParamSource): boolean {
  return read(params, "range") !== undefined;
}
