import Link from "next/link";

import { describeExplanation, VERDICT_LABEL } from "@/lib/violations/describe-explanation";
import type { KeyDrilldown } from "@/lib/violations/drilldown-types";
import { formatInstant } from "@/lib/violations/format";
import { drilldownHref } from "@/lib/violations/view-params";

/** Each violation of the drill-down with its verdict and, in words, what coincides with it. The focused one first. */
export function ExplanationList({ drilldown, timeZone }: { drilldown: KeyDrilldown; timeZone: string }) {
  const events = new Map(drilldown.events.map((e) => [e.eventId, e]));
  const deployments = new Map(drilldown.deployments.map((d) => [d.id, d]));
  const changes = new Map(drilldown.leaderChanges.map((c) => [c.id, c]));
  const lockChanges = new Map(drilldown.lockChanges.map((c) => [c.id, c]));
  const ordered = [...drilldown.explanations].reverse().sort((a, b) => Number(b.eventId === drilldown.focusEventId) - Number(a.eventId === drilldown.focusEventId));
  if (ordered.length === 0) return <p className="muted">No violation of this key in the range: every entry found the counter at zero.</p>;
  return (
    <ol className="vio-explanations">
      {ordered.map((explanation) => {
        const event = events.get(explanation.eventId)!;
        const lines = describeExplanation(explanation, { event, deployments, changes, lockChanges, windowMs: drilldown.windowMs, graceMs: drilldown.graceMs, timeZone });
        const isFocus = explanation.eventId === drilldown.focusEventId;
        return (
          <li key={explanation.eventId} className="vio-explanation" data-verdict={explanation.verdict} data-focus={isFocus} data-testid="violation-explanation" aria-label={`Violation ${explanation.eventId}`}>
            <div className="vio-explanation-head">
              <span className="vio-verdict" data-verdict={explanation.verdict}>
                {VERDICT_LABEL[explanation.verdict]}
              </span>
              <span className="mono">{formatInstant(event.observedAt, timeZone)}</span>
              <span>
                <strong>{event.worker}</strong> ({event.service}), counter {event.counter}
              </span>
              {event.traceUrl ? (
                <a href={event.traceUrl} target="_blank" rel="noreferrer">
                  trace {event.traceId}
                </a>
              ) : event.traceId ? (
                <span className="mono muted">trace {event.traceId}</span>
              ) : null}
              {isFocus ? <span className="vio-focus-tag">this event</span> : <Link href={drilldownHref({ eventId: event.eventId, observedAt: event.observedAt })}>focus</Link>}
            </div>
            <ul className="vio-explanation-lines">
              {lines.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          </li>
        );
      })}
    </ol>
  );
}
