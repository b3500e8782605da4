// The reader's time zone travels in a cookie, so that server renders bucket and print times the
// way the browser will (see use-reader-time-zone.ts). Client-safe and pure.

import { DEFAULT_TIME_ZONE, isValidTimeZone } from "@/lib/violations/time-zone";

export const TIME_ZONE_COOKIE = "baton-tz";

/** The cookie's zone when it names a valid one, else UTC. */
export function timeZoneFromCookie(value: string | undefined): string {
  if (value === undefined) return DEFAULT_TIME_ZONE;
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch (error) {
    // A hand-edited cookie with a stray %: the default zone is the honest answer.
    if (error instanceof URIError) return DEFAULT_TIME_ZONE;
    throw error;
  }
  return isValidTimeZone(decoded) ? decoded : DEFAULT_TIME_ZONE;
}
