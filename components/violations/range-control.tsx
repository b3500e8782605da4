"use client";

import { useState } from "react";

import { formatMinute } from "@/lib/violations/format";
import { wallClockToInstant } from "@/lib/violations/time-zone";
import { RANGE_PRESETS, type RangePreset, type RangeSelection } from "@/lib/violations/view-params";

const LABELS: Record<RangePreset, string> = { "1h": "1 h", "6h": "6 h", "24h": "24 h", "7d": "7 d" };

/** "2026-11-22T14:02" in the given zone, for a datetime-local input. */
function toInput(ms: number, timeZone: string): string {
  return formatMinute(ms, timeZone).replace(" ", "T");
}

/** Presets ending now (1 h, 6 h, 24 h, 7 d) or a custom range, in the page's time zone: the leader timeline's control. */
export function RangeControl({
  selection,
  range,
  timeZone,
  onChange,
}: {
  selection: RangeSelection;
  range: { fromMs: number; toMs: number };
  timeZone: string;
  onChange: (selection: RangeSelection) => void;
}) {
  const [isCustom, setIsCustom] = useState(selection.preset === "custom");
  const [from, setFrom] = useState(() => toInput(range.fromMs, timeZone));
  const [to, setTo] = useState(() => toInput(range.toMs, timeZone));
  const isValid = from !== "" && to !== "" && wallClockToInstant(from, timeZone) < wallClockToInstant(to, timeZone);
  return (
    <div className="vio-range" role="group" aria-label="Time range">
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
      <button type="button" aria-pressed={isCustom} onClick={() => setIsCustom(true)}>
        Custom
      </button>
      {isCustom ? (
        <form
          className="vio-range-custom"
          onSubmit={(event) => {
            event.preventDefault();
            if (isValid) onChange({ preset: "custom", from: new Date(wallClockToInstant(from, timeZone)).toISOString(), to: new Date(wallClockToInstant(to, timeZone)).toISOString() });
          }}
        >
          <label>
            From <input type="datetime-local" value={from} onChange={(event) => setFrom(event.target.value)} />
          </label>
          <label>
            to <input type="datetime-local" value={to} onChange={(event) => setTo(event.target.value)} />
          </label>
          <span className="muted vio-small">{timeZone}</span>
          <button type="submit" disabled={!isValid}>
            Show
          </button>
        </form>
      ) : null}
    </div>
  );
}
