// The range a timeline covers: a preset ending now (1 h, 6 h, 24 h, 7 d) or a custom one, as
// the subscription page's URL holds it. Pure and client-safe.

export const RANGE_PRESETS = { "1h": 3_600_000, "6h": 21_600_000, "24h": 86_400_000, "7d": 604_800_000 } as const;
export type RangePreset = keyof typeof RANGE_PRESETS;
export const DEFAULT_PRESET: RangePreset = "6h";
/** The longest range a timeline may cover. */
export const MAX_RANGE_MS = 31 * 86_400_000;

export type RangeSelection = { preset: RangePreset } | { preset: "custom"; from: string; to: string };

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
  return selection.preset === "custom" ? { range: "custom", from: selection.from, to: selection.to } : { range: selection.preset };
}

/** The range in epoch ms: presets end now; a custom range longer than the maximum keeps its end. */
export function resolveRange(selection: RangeSelection, nowMs: number): { fromMs: number; toMs: number } {
  if (selection.preset !== "custom") return { fromMs: nowMs - RANGE_PRESETS[selection.preset], toMs: nowMs };
  const toMs = Date.parse(selection.to);
  return { fromMs: Math.max(Date.parse(selection.from), toMs - MAX_RANGE_MS), toMs };
}

/** A preset follows "now" and keeps refreshing; a custom range is fixed. */
export function isLiveRange(selection: RangeSelection): boolean {
  return selection.preset !== "custom";
}
