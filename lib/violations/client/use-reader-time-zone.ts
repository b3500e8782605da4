import { useEffect, useState } from "react";

import { TIME_ZONE_COOKIE } from "@/lib/violations/time-zone-cookie";
import { isValidTimeZone } from "@/lib/violations/time-zone";

/**
 * The reader's time zone. The first render uses the zone the server rendered with (the cookie,
 * or UTC on a first visit) so that hydration matches; after mount the browser's own zone takes
 * over and is remembered in a cookie for the next server render.
 */
export function useReaderTimeZone(serverTimeZone: string): string {
  const [timeZone, setTimeZone] = useState(serverTimeZone);
  useEffect(() => {
    const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (!browserZone || !isValidTimeZone(browserZone) || browserZone === serverTimeZone) return;
    // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from Firefox and Safari; this one cookie tells the server the reader's zone
    document.cookie = `${TIME_ZONE_COOKIE}=${encodeURIComponent(browserZone)}; path=/; max-age=31536000; samesite=lax`;
    setTimeZone(browserZone);
  }, [serverTimeZone]);
  return timeZone;
}
