"use client";

import { useEffect, useState } from "react";

import { RANGE_PRESETS, type RangePreset, type RangeSelection } from "@/lib/timeline/time-range";

const LABELS: Record<RangePreset, string> = { "1h": "1 h", "6h": "6 h", "24h": "24 h", "7d": "7 d" };

/** "2026-11-22T14:02" in the reader's zone, for a datetime-local input. */
function toLocalInput(iso: string): string {
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** Presets ending now, or a custom range (local times). */
export function RangePicker({ selection, range, onChange }: { selection: RangeSelection; range: { fromMs: number; toMs: number }; onChange: (selection: RangeSelection) => void }) {
  const [isCustom, setIsCustom] = useState(selection.preset === "custom");
  // Local times exist only in the browser: filled after hydration.
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  useEffect(() => {
    setFrom((current) => current || toLocalInput(new Date(range.fromMs).toISOString()));
    setTo((current) => current || toLocalInput(new Date(range.toMs).toISOString()));
  }, [range.fromMs, range.toMs]);
  const isValid = from !== "" && to !== "" && new Date(from).getTime() < new Date(to).getTime();
  return (
    <div className="range-picker" role="group" aria-label="Time range">
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
          className="range-custom"
          onSubmit={(event) => {
            event.preventDefault();
            if (isValid) onChange({ preset: "custom", from: new Date(from).toISOString(), to: new Date(to).toISOString() });
          }}
        >
          <label>
            From <input type="datetime-local" value={from} onChange={(event) => setFrom(event.target.value)} />
          </label>
          <label>
            to <input type="datetime-local" value={to} onChange={(event) => setTo(event.target.value)} />
          </label>
          <button type="submit" disabled={!isValid}>
            Show
          </button>
        </form>
      ) : null}
    </div>
  );
}
