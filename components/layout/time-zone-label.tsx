"use client";

import { useSyncExternalStore } from "react";

const subscribeNever = () => () => undefined;
const readBrowserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
/** The server knows no reader's zone: it renders nothing, and the browser fills it in. */
const readServerZone = () => null;

/** The zone the pages' times are shown in (the reader's own), in the header: "Europe/Berlin", read as "Times in Europe/Berlin". */
export function TimeZoneLabel() {
  const zone = useSyncExternalStore(subscribeNever, readBrowserZone, readServerZone);
  if (zone === null) return null;
  return (
    <span className="time-zone-label muted small" title={`Times on these pages are in ${zone}, your browser's time zone`}>
      <span className="sr-only">Times in </span>
      {zone}
    </span>
  );
}
