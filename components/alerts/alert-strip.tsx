import Link from "next/link";

import type { AlertSpan } from "@/lib/alerts/alert-spans";

/** Minimum width of a marker, so that a short alert stays visible and clickable. */
const MIN_WIDTH_PCT = 0.6;

/**
 * Alerts as markers along a chart's time axis, in a strip under it: `insetLeft`/`insetRight`
 * (pixels) line it up with the chart's plot area. Each marker links to the Alerts page.
 */
export function AlertStrip({ spans, insetLeft, insetRight }: { spans: AlertSpan[]; insetLeft: number; insetRight: number }) {
  if (spans.length === 0) return null;
  return (
    // biome-ignore lint/a11y/useSemanticElements: bars placed by time along a strip; a <ul> would bring list layout and markers to undo
    <div className="alert-strip" style={{ marginLeft: insetLeft, marginRight: insetRight }} role="list" aria-label="Alerts in this range">
      {spans.map((span) => (
        <Link
          key={span.id}
          role="listitem"
          href="/alerts"
          className="alert-marker"
          data-state={span.state}
          data-severity={span.severity}
          title={span.title}
          aria-label={span.title}
          style={{ left: `${span.start * 100}%`, width: `${Math.max(MIN_WIDTH_PCT, (span.end - span.start) * 100)}%` }}
        />
      ))}
    </div>
  );
}
