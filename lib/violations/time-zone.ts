// Time-zone arithmetic for bucketing and labels: IANA zone names, their UTC offset at an
// instant, and the instants where the offset changes (daylight saving). Client-safe and pure.

export const DEFAULT_TIME_ZONE = "UTC";

const MINUTE_MS = 60_000;

const formats = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock fields of an instant in a zone (cached formatter per zone). */
function wallClockFormat(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formats.set(timeZone, format);
  }
  return format;
}

/** True for a zone name this runtime knows ("Europe/Berlin", "UTC", "Asia/Kathmandu"). */
export function isValidTimeZone(timeZone: string): boolean {
  if (timeZone.trim() === "") return false;
  try {
    wallClockFormat(timeZone);
    return true;
  } catch (error) {
    // Intl throws a RangeError for an unknown zone; anything else is a bug worth seeing.
    if (error instanceof RangeError) return false;
    throw error;
  }
}

/** The zone's offset from UTC at an instant, in ms (Berlin in summer: +7,200,000). */
export function zoneOffsetMs(timeZone: string, atMs: number): number {
  const parts = wallClockFormat(timeZone).formatToParts(atMs);
  const field = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wallClockAsUtc = Date.UTC(field("year"), field("month") - 1, field("day"), field("hour"), field("minute"), field("second"));
  const instantToSecond = Math.floor(atMs / 1000) * 1000;
  return wallClockAsUtc - instantToSecond;
}

/** A piecewise-constant offset: `offsetMs` applies from `fromMs` until the next change. */
export type OffsetSpan = { fromMs: number; offsetMs: number };

/**
 * The zone's offsets over [fromMs, toMs]: the offset at fromMs, then one entry per change. A
 * change is found by bisection to the minute (zones change on minute boundaries), so a month
 * costs a few dozen offset look-ups instead of one per bucket.
 */
export function offsetSpans(timeZone: string, fromMs: number, toMs: number): OffsetSpan[] {
  const spans: OffsetSpan[] = [{ fromMs, offsetMs: zoneOffsetMs(timeZone, fromMs) }];
  // No zone changes its offset twice within a day; probing every 12 hours finds each change.
  const probeMs = 12 * 3_600_000;
  let left = fromMs;
  let leftOffset = spans[0]!.offsetMs;
  while (left < toMs) {
    const right = Math.min(left + probeMs, toMs);
    const rightOffset = zoneOffsetMs(timeZone, right);
    if (rightOffset !== leftOffset) {
      // offset(low) is the old one and offset(high) the new one: halve until a minute apart.
      let low = left;
      let high = right;
      while (high - low > MINUTE_MS) {
        const middle = low + Math.floor((high - low) / 2);
        if (zoneOffsetMs(timeZone, middle) === leftOffset) low = middle;
        else high = middle;
      }
      spans.push({ fromMs: Math.floor(high / MINUTE_MS) * MINUTE_MS, offsetMs: rightOffset });
    }
    left = right;
    leftOffset = rightOffset;
  }
  return spans;
}

/**
 * The instant a wall-clock time ("2026-11-22T14:02", as a datetime-local input gives it) names
 * in a zone; NaN when it is not one. A time in a repeated hour gives one of its two instants,
 * and a time a daylight-saving jump skips is read with the offset of one side of the jump: a
 * custom range picked to the minute around a jump may be an hour off, nothing worse.
 */
export function wallClockToInstant(value: string, timeZone: string): number {
  const asUtc = Date.parse(`${value.length === 16 ? `${value}:00` : value}Z`);
  if (!Number.isFinite(asUtc)) return Number.NaN;
  const firstGuess = asUtc - zoneOffsetMs(timeZone, asUtc);
  return asUtc - zoneOffsetMs(timeZone, firstGuess);
}
