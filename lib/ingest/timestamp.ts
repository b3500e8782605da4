import "server-only";

import { z } from "zod";

import { MAX_FUTURE_SKEW_MS, MIN_TIMESTAMP_MS } from "@/lib/ingest/limits";

export type TimestampParse = { isValid: true; ms: number } | { isValid: false; message: string };

// RFC 3339 date-time: a full date, a time with optional fraction, and a required offset.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const isLeapYear = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && isLeapYear ? 29 : DAYS_IN_MONTH[month - 1]!;
}

const DIGIT_0 = 48;
/** Where `YYYY-MM-DDTHH:MM:SS.sssZ` (Date.prototype.toISOString's form) has digits. */
const CANONICAL_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22];
const CANONICAL_SEPARATORS: [number, string][] = [
  [4, "-"],
  [7, "-"],
  [10, "T"],
  [13, ":"],
  [16, ":"],
  [19, "."],
  [23, "Z"],
];

function digitsAt(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) value = value * 10 + text.charCodeAt(i) - DIGIT_0;
  return value;
}

/**
 * The ingest hot path's fast case: a string of exactly toISOString's form, read without a regular
 * expression (the same checks as parseRfc3339). `undefined` when the text is not of that form.
 */
function parseCanonicalUtc(text: string): number | null | undefined {
  if (text.length !== 24) return undefined;
  for (const [at, separator] of CANONICAL_SEPARATORS) if (text[at] !== separator) return undefined;
  for (const at of CANONICAL_DIGITS) {
    const code = text.charCodeAt(at) - DIGIT_0;
    if (code < 0 || code > 9) return undefined;
  }
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  return Date.UTC(year, month - 1, day, hour, minute, second, digitsAt(text, 20, 3));
}

/**
 * The instant an RFC 3339 string names, or null when it is not one. Date.parse is not used: it
 * accepts forms RFC 3339 does not (no offset means local time) and rolls 2025-02-30 over to
 * March 2, so every field is checked here.
 */
function parseRfc3339(text: string): number | null {
  const canonical = parseCanonicalUtc(text);
  if (canonical !== undefined) return canonical;
  const match = RFC3339.exec(text);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  // Leap seconds (:60) cannot be represented by a JavaScript or PostgreSQL timestamp.
  if (hour > 23 || minute > 59 || second > 59) return null;
  const offsetHours = zulu ? 0 : Number(oh);
  const offsetMinutes = zulu ? 0 : Number(om);
  if (offsetHours > 23 || offsetMinutes > 59) return null;
  const millis = fraction ? Number(fraction.slice(0, 3).padEnd(3, "0")) : 0;
  const offsetMs = (offsetHours * 60 + offsetMinutes) * 60_000 * (sign === "-" ? -1 : 1);
  return Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMs;
}

function checkRange(ms: number, nowMs: number): TimestampParse {
  if (ms < MIN_TIMESTAMP_MS) {
    return { isValid: false, message: "is before 2000-01-01 (epoch values must be in milliseconds, not seconds)" };
  }
  if (ms > nowMs + MAX_FUTURE_SKEW_MS) return { isValid: false, message: "is more than one day in the future" };
  return { isValid: true, ms };
}

/** An RFC 3339 string or epoch milliseconds (digits, for query strings) as epoch ms, unchecked range. */
export function parseInstant(text: string): number | null {
  if (/^\d{1,15}$/.test(text)) return Number(text);
  return parseRfc3339(text);
}

/** An RFC 3339 string with an offset, or epoch milliseconds; neither before 2000 nor a day ahead. */
export function parseTimestamp(value: unknown, nowMs: number): TimestampParse {
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) return { isValid: false, message: "must be an integer number of epoch milliseconds" };
    return checkRange(value, nowMs);
  }
  if (typeof value === "string") {
    const ms = parseRfc3339(value);
    if (ms === null) return { isValid: false, message: "must be an RFC 3339 date-time with an offset (e.g. 2026-11-22T10:15:30.123Z) or epoch milliseconds" };
    return checkRange(ms, nowMs);
  }
  return { isValid: false, message: "must be an RFC 3339 string or a number of epoch milliseconds" };
}

/**
 * A zod schema for parseTimestamp: its output is epoch milliseconds. The transform hides the
 * accepted forms from JSON Schema, so the metadata states them (the API document uses it).
 */
export const timestampSchema = z
  .unknown()
  .transform((value, ctx) => {
    const parsed = parseTimestamp(value, Date.now());
    if (parsed.isValid) return parsed.ms;
    ctx.addIssue({ code: "custom", message: parsed.message });
    return z.NEVER;
  })
  .meta({
    description: "An RFC 3339 date-time with an offset, or epoch milliseconds; not before 2000-01-01 and at most one day ahead of Baton's clock.",
    anyOf: [
      { type: "string", format: "date-time" },
      { type: "integer", minimum: MIN_TIMESTAMP_MS },
    ],
  });
