// Words for times, durations and counts on the violations and deployments pages. Client-safe
// and pure: the time zone is always a parameter, so the server's render and the browser's
// hydration print the same text, and tests do not depend on the machine's zone.

const formats = new Map<string, Intl.DateTimeFormat>();

function format(options: Intl.DateTimeFormatOptions, timeZone: string): Intl.DateTimeFormat {
  const key = `${JSON.stringify(options)}|${timeZone}`;
  let cached = formats.get(key);
  if (!cached) formats.set(key, (cached = new Intl.DateTimeFormat("en-GB", { ...options, timeZone })));
  return cached;
}

const toMs = (at: string | number): number => (typeof at === "number" ? at : Date.parse(at));

function parts(at: number, timeZone: string): Record<string, string> {
  const out: Record<string, string> = {};
  const fields = format(
    { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" },
    timeZone,
  );
  for (const part of fields.formatToParts(at)) out[part.type] = part.value;
  return out;
}

/** "2026-11-22 10:15:30.123" in the zone. */
export function formatInstant(at: string | number, timeZone: string): string {
  const ms = toMs(at);
  const p = parts(ms, timeZone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}.${String(((ms % 1000) + 1000) % 1000).padStart(3, "0")}`;
}

/** "2026-11-22 10:15" in the zone. */
export function formatMinute(at: string | number, timeZone: string): string {
  const p = parts(toMs(at), timeZone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
}

/** An axis tick: "10:15" for buckets under an hour, "22 Nov 10:00" for hours, "22 Nov" for days. */
export function formatTick(at: number, bucketMs: number, spanMs: number, timeZone: string): string {
  const time = format({ hour: "2-digit", minute: "2-digit", hourCycle: "h23" }, timeZone).format(at);
  const day = format({ day: "numeric", month: "short" }, timeZone).format(at);
  if (bucketMs >= 86_400_000) return day;
  return spanMs > 86_400_000 ? `${day} ${time}` : time;
}

/** "250 ms", "4.2 s", "3 m 5 s", "2 h 10 m", "3 d 4 h". */
export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 1_000) return `${Math.round(abs)} ms`;
  if (abs < 60_000) return `${(abs / 1_000).toFixed(abs < 10_000 ? 1 : 0)} s`;
  const seconds = Math.floor(abs / 1_000);
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3_600);
  const minutes = Math.floor((seconds % 3_600) / 60);
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return minutes > 0 ? `${hours} h ${minutes} m` : `${hours} h`;
  const rest = seconds % 60;
  return rest > 0 ? `${minutes} m ${rest} s` : `${minutes} m`;
}

/** "3.2 s before", "12 s after", "at the same moment". */
export function formatOffset(deltaMs: number): string {
  if (deltaMs === 0) return "at the same moment";
  return `${formatDuration(deltaMs)} ${deltaMs < 0 ? "before" : "after"}`;
}

export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

/** A bucket size in words: "1 minute", "10 minutes", "3 hours", "1 day". */
export function formatBucketSize(ms: number): string {
  if (ms % 86_400_000 === 0) return ms === 86_400_000 ? "1 day" : `${ms / 86_400_000} days`;
  if (ms % 3_600_000 === 0) return ms === 3_600_000 ? "1 hour" : `${ms / 3_600_000} hours`;
  return ms === 60_000 ? "1 minute" : `${ms / 60_000} minutes`;
}
