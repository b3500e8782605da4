"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useSyncExternalStore } from "react";

import {
  getRefreshRate,
  getServerRefreshRate,
  isRefreshRate,
  REFRESH_RATE_WORDS,
  REFRESH_RATES,
  setRefreshRate,
  subscribeRefreshRate,
  type RefreshRate,
} from "@/lib/client/refresh-rate";

/** The header's refresh picker: how often live pages refresh, or paused; a button refreshes now. */
export function RefreshControl() {
  const queryClient = useQueryClient();
  const rate = useSyncExternalStore(subscribeRefreshRate, getRefreshRate, getServerRefreshRate);
  const choose = (next: RefreshRate) => {
    setRefreshRate(next);
    // A refresh now restarts every live query's timer at the new rate (react-query reads the
    // rate again after each fetch); pausing needs none.
    if (next !== "paused") void queryClient.refetchQueries({ type: "active" });
  };
  return (
    // biome-ignore lint/a11y/useSemanticElements: a toolbar segment, not a form section: a <fieldset> would need a <legend> and its own box model undone
    <div className="refresh-control" role="group" aria-label="Refresh">
      <button type="button" onClick={() => void queryClient.refetchQueries({ type: "active" })} title="Refresh now" aria-label="Refresh">
        <span aria-hidden="true">↻</span>
      </button>
      <button
        type="button"
        aria-pressed={rate === "paused"}
        onClick={() => choose(rate === "paused" ? "auto" : "paused")}
        title={rate === "paused" ? "Resume refreshing" : "Pause refreshing"}
      >
        {rate === "paused" ? "Resume" : "Pause"}
      </button>
      <label>
        <span className="sr-only">Refresh every</span>
        <select value={rate} title="Refresh every" onChange={(event) => isRefreshRate(event.target.value) && choose(event.target.value)}>
          {REFRESH_RATES.map((choice) => (
            <option key={choice} value={choice}>
              {REFRESH_RATE_WORDS[choice]}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
