// Words for times, durations and counts on the board and the timeline. Client-safe and pure
// (the time zone is a parameter so that tests do not depend on the machine's).

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** "42 s", "12 m 5 s", "3 h 12 m", "2 d 4 h": the two largest units. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / SECOND));
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3_600);
  const minutes = Math.floor((total % 3_600) / 60);
  const seconds = total % 60;
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return minutes > 0 ? `${hours} h ${minutes} m` : `${hours} h`;
  if (minutes > 0) return seconds > 0 ? `${minutes} m ${seconds} s` : `${minutes} m`;
  return `${seconds} s`;
}

const clockFormats = new Map<string, Intl.DateTimeFormat>();

function clockFormat(options: Intl.DateTimeFormatOptions, timeZone: string | undefined): Intl.DateTimeFormat {
  const key = `${JSON.stringify(options)}|${timeZone ?? ""}`;
  let format = clockFormats.get(key);
  if (!format) clockFormats.set(key, (format = new Intl.DateTimeFormat("en-GB", { ...options, timeZone })));
  return format;
}

function dayOf(ms: number, timeZone: string | undefined): string {
  return clockFormat({ year: "numeric", month: "2-digit", day: "2-digit" }, timeZone).format(ms);
}

/** "14:02" today, "21 Nov 14:02" on another day (in `timeZone`, default the reader's). */
export function formatClock(iso: string, nowMs: number, timeZone?: string): string {
  const ms = Date.parse(iso);
  const time = clockFormat({ hour: "2-digit", minute: "2-digit", hourCycle: "h23" }, timeZone).format(ms);
  if (dayOf(ms, timeZone) === dayOf(nowMs, timeZone)) return time;
  return `${clockFormat({ day: "numeric", month: "short" }, timeZone).format(ms)} ${time}`;
}

/** An axis tick: "14:02", or "14:02:30" on an axis that spans less than ten minutes (its minutes would repeat). */
export function formatAxisTime(ms: number, spanMs: number, nowMs: number, timeZone?: string): string {
  if (spanMs >= 10 * 60_000) return formatClock(new Date(ms).toISOString(), nowMs, timeZone);
  return clockFormat({ hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" }, timeZone).format(ms);
}

/** Exact time for lists of changes: "2026-11-22 14:02:07.123". */
export function formatExactTime(iso: string, timeZone?: string): string {
  const ms = Date.parse(iso);
  const date = clockFormat({ year: "numeric", month: "2-digit", day: "2-digit" }, timeZone).formatToParts(ms);
  const part = (type: string) => date.find((p) => p.type === type)?.value ?? "";
  const time = clockFormat({ hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" }, timeZone).format(ms);
  return `${part("year")}-${part("month")}-${part("day")} ${time}.${String(ms % 1000).padStart(3, "0")}`;
}

/** A full timestamp with its zone, for alerts: "2026-11-22 14:02:07 UTC", "2026-11-22 15:02:07 CET". */
export function formatZonedTime(iso: string, timeZone?: string): string {
  const ms = Date.parse(iso);
  const date = clockFormat({ year: "numeric", month: "2-digit", day: "2-digit" }, timeZone).formatToParts(ms);
  const part = (type: string) => date.find((p) => p.type === type)?.value ?? "";
  const time = clockFormat({ hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" }, timeZone).format(ms);
  const zone = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "short" }).formatToParts(ms).find((p) => p.type === "timeZoneName")?.value ?? "";
  return `${part("year")}-${part("month")}-${part("day")} ${time} ${zone}`.trimEnd();
}

/** "since 14:02, 3 h 12 m" */
export function formatTenure(sinceIso: string, nowMs: number, timeZone?: string): string {
  return `since ${formatClock(sinceIso, nowMs, timeZone)}, ${formatDuration(nowMs - Date.parse(sinceIso))}`;
}

/** "3 m ago" ("just now" under a second). */
export function formatAgo(iso: string, nowMs: number): string {
  const ms = nowMs - Date.parse(iso);
  return ms < SECOND ? "just now" : `${formatDuration(ms)} ago`;
}

let fractionCounts: Intl.NumberFormat | undefined;

/**
 * "12,345", or "?" when unknown. Whole numbers are grouped here rather than through Intl: the
 * worker's health and alert rules describe backlogs with it, and Intl's first use loads ICU's
 * data into the process (about 10 MB of the worker's memory).
 */
export function formatCount(value: number | null): string {
  if (value === null) return "?";
  if (!Number.isSafeInteger(value)) return (fractionCounts ??= new Intl.NumberFormat("en-US")).format(value);
  return `${value < 0 ? "-" : ""}${String(Math.abs(value)).replace(/\B(?=(\d{3})+$)/g, ",")}`;
}

/** "33.3%" */
export function formatShare(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

/** "10 min", "1 h", "90 min": a window length in words. */
export function formatWindow(ms: number): string {
  if (ms >= HOUR && ms % HOUR === 0) return `${ms / HOUR} h`;
  return `${Math.round(ms / MINUTE)} min`;
}

/** "10:02:01.100": a time of day to the millisecond (in `timeZone`, default the reader's), for what happened to a lock. */
export function formatPreciseClock(iso: string, timeZone?: string): string {
  const ms = Date.parse(iso);
  const time = clockFormat({ hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" }, timeZone).format(ms);
  return `${time}.${String(((ms % 1000) + 1000) % 1000).padStart(3, "0")}`;
}

/** A size in bytes in the largest unit that keeps it at least 1: "0 B", "512 B", "16.0 MB" (powers of 1,024). */
export function formatBytes(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}
