// How often live pages refresh, chosen once for the whole app in the header (as Grafana's
// refresh picker): each page's own rate ("auto"), a fixed period, or paused. The choice lives in
// the browser (localStorage); react-query reads it through liveInterval(). Client-safe.

export const REFRESH_RATES = ["auto", "5s", "10s", "30s", "1m", "5m", "paused"] as const;
export type RefreshRate = (typeof REFRESH_RATES)[number];

const PERIOD_MS: Record<Exclude<RefreshRate, "auto" | "paused">, number> = { "5s": 5_000, "10s": 10_000, "30s": 30_000, "1m": 60_000, "5m": 300_000 };
export const REFRESH_RATE_WORDS: Record<RefreshRate, string> = {
  auto: "Auto",
  "5s": "5 s",
  "10s": "10 s",
  "30s": "30 s",
  "1m": "1 min",
  "5m": "5 min",
  paused: "Paused",
};
const STORAGE_KEY = "baton-refresh-rate";

export function isRefreshRate(value: string | null): value is RefreshRate {
  return (REFRESH_RATES as readonly string[]).includes(value ?? "");
}

/** The period a live query refreshes at under `rate`, given the page's own; false when paused. */
export function refreshPeriodMs(rate: RefreshRate, pageDefaultMs: number): number | false {
  if (rate === "paused") return false;
  return rate === "auto" ? pageDefaultMs : PERIOD_MS[rate];
}

let current: RefreshRate = "auto";
let isLoaded = false;
const listeners = new Set<() => void>();

export function getRefreshRate(): RefreshRate {
  if (!isLoaded && typeof window !== "undefined") {
    isLoaded = true;
    const stored = window.localStorage.getItem(STORAGE_KEY);
    if (isRefreshRate(stored)) current = stored;
  }
  return current;
}

/** What the server renders with: the page's own rate. */
export function getServerRefreshRate(): RefreshRate {
  return "auto";
}

export function setRefreshRate(rate: RefreshRate): void {
  current = rate;
  isLoaded = true;
  window.localStorage.setItem(STORAGE_KEY, rate);
  for (const listener of listeners) listener();
}

export function subscribeRefreshRate(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A react-query refetchInterval that follows the chosen rate (read again after every fetch). */
export function liveInterval(pageDefaultMs: number): () => number | false {
  return () => refreshPeriodMs(getRefreshRate(), pageDefaultMs);
}
