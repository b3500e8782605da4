"use client";

import { useEffect, useState } from "react";

import { RANGE_PRESETS, type RangePreset, type RangeSelection } from "@/lib/timeline/time-range";
import { formatMinute } from "@/lib/violations/format";
import { wallClockToInstant } from "@/lib/violations/time-zone";

const LABELS: Record<RangePreset, string> = { "1h": "1 h", "6h": "6 h", "24h": "24 h", "7d": "7 d" };

/** "2026-11-22T14:02" for a datetime-local input: in the given zone, or the reader's own. */
function toInput(ms: number, timeZone: string | undefined): string {
  if (timeZone !== undefined) return formatMinute(ms, timeZone).replace(" ", "T");
  const date = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The instant a datetime-local value names: in the given zone, or the reader's own. */
function toInstant(value: string, timeZone: string | undefined): number {
  return timeZone !== undefined ? wallClockToInstant(value, timeZone) : new Date(value).getTime();
}

/**
 * The time range of every timeline (leader changes, violations, deployments): presets ending
 * now (1 h, 6 h, 24 h, 7 d) or a custom range. Custom times are read in `timeZone` (the page's
 * zone) or, without one, in the reader's own zone, which exists only in the browser: the inputs
 * are filled after hydration then.
 */
export function RangeControl({
  selection,
  range,
  timeZone,
  onChange,
}: {
  selection: RangeSelection;
  range: { fromMs: number; toMs: number };
  timeZone?: string;
  onChange: (selection: RangeSelection) => void;
}) {
  const [isCustom, setIsCustom] = useState(selection.preset === "custom");
  const [from, setFrom] = useState(() => (timeZone === undefined ? "" : toInput(range.fromMs, timeZone)));
  const [to, setTo] = useState(() => (timeZone === undefined ? "" : toInput(range.toMs, timeZone)));
  useEffect(() => {
    setFrom((current) => current || toInput(range.fromMs, timeZone));
    setTo((current) => current || toInput(range.toMs, timeZone));
  }, [range.fromMs, range.toMs, timeZone]);
  const isValid = from !== "" && to !== "" && toInstant(from, timeZone) < toInstant(to, timeZone);
  return (
    // biome-ignore lint/a11y/useSemanticElements: a toolbar segment, not a form section: a <fieldset> would need a <legend> and its own box model undone
    <div className="range-control" role="group" aria-label="Time range">
      {(Object.keys(RANGE_PRESETS) as RangePreset[]).map((preset) => (
        <button
          key={preset}
          type="button"
          aria-pressed={!isCustom && selection.preset === preset}
          onClick={() => {
            setIsCustom(false);
            onChange({ preset });
          }}
        >
          {LABELS[preset]}
        </button>
      ))}
      {selection.preset === "since" ? (
        <button type="button" aria-pressed={!isCustom} onClick={() => setIsCustom(false)}>
          Since the first data
        </button>
      ) : null}
      <button type="button" aria-pressed={isCustom} onClick={() => setIsCustom(true)}>
        Custom
      </button>
      {isCustom ? (
        <form
          className="range-custom"
          onSubmit={(event) => {
            event.preventDefault();
            if (isValid)
              onChange({ preset: "custom", from: new Date(toInstant(from, timeZone)).toISOString(), to: new Date(toInstant(to, timeZone)).toISOString() });
          }}
        >
          <label>
            From <input type="datetime-local" value={from} onChange={(event) => setFrom(event.target.value)} />
          </label>
          <label>
            to <input type="datetime-local" value={to} onChange={(event) => setTo(event.target.value)} />
          </label>
          {timeZone === undefined ? null : <span className="muted vio-small">{timeZone}</span>}
          <button type="submit" disabled={!isValid}>
            Show
          </button>
        </form>
      ) : null}
    </div>
  );
}
