"use client";

import Link from "next/link";
import { useState } from "react";

import { ListPager } from "@/components/ui/list-pager";
import { describeExplanation } from "@/lib/violations/describe-explanation";
import type { KeyDrilldown } from "@/lib/violations/drilldown-types";
import { formatInstant } from "@/lib/violations/format";
import { CAUSE_LABEL } from "@/lib/violations/cause-words";
import { drilldownHref, lockStoryHref } from "@/lib/violations/view-params";

/** Violations per page: a busy key has hundreds. */
export const EXPLANATION_PAGE_SIZE = 10;

/** Each violation of the drill-down: its cause in one sentence, then the evidence. The focused one first, then the newest. */
export function ExplanationList({ drilldown, timeZone }: { drilldown: KeyDrilldown; timeZone: string }) {
  const [page, setPage] = useState(0);
  const events = new Map(drilldown.events.map((e) => [e.eventId, e]));
  const deployments = new Map(drilldown.deployments.map((d) => [d.id, d]));
  const changes = new Map(drilldown.leaderChanges.map((c) => [c.id, c]));
  const lockChanges = new Map(drilldown.lockChanges.map((c) => [c.id, c]));
  const ordered = [...drilldown.explanations]
    .reverse()
    .sort((a, b) => Number(b.eventId === drilldown.focusEventId) - Number(a.eventId === drilldown.focusEventId));
  if (ordered.length === 0) return <p className="muted">No violation of this key in the range: every entry found the counter at zero.</p>;
  const shown = ordered.slice(page * EXPLANATION_PAGE_SIZE, (page + 1) * EXPLANATION_PAGE_SIZE);
  return (
    <>
      <ol className="vio-explanations">
        {shown.map((explanation) => {
          const event = events.get(explanation.eventId)!;
          const words = describeExplanation(explanation, {
            event,
            deployments,
            changes,
            lockChanges,
            windowMs: drilldown.windowMs,
            graceMs: drilldown.graceMs,
            timeZone,
          });
          const isFocus = explanation.eventId === drilldown.focusEventId;
          const lockHref = event.lock === null ? null : lockStoryHref(event.lock, event.observedAt);
          return (
            <li
              key={explanation.eventId}
              className="vio-explanation"
              data-cause={explanation.cause}
              data-focus={isFocus}
              data-testid="violation-explanation"
              aria-label={`Violation ${explanation.eventId}`}
            >
              <div className="vio-explanation-head">
                <span className="vio-verdict" data-cause={explanation.cause} data-testid="violation-cause">
                  {CAUSE_LABEL[explanation.cause]}
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
                {isFocus ? (
                  <span className="vio-focus-tag">this event</span>
                ) : (
                  <Link href={drilldownHref({ eventId: event.eventId, observedAt: event.observedAt })}>focus</Link>
                )}
              </div>
              <p className="vio-cause-lead">{words.cause}</p>
              <ul className="vio-explanation-lines">
                {words.evidence.map((line) => (
                  <li key={line}>{line}</li>
                ))}
                {words.lockStory !== null ? (
                  <li>
                    {words.lockStory}{" "}
                    {lockHref !== null ? (
                      <Link href={lockHref} data-testid="lock-story-link">
                        The lock&apos;s story around it →
                      </Link>
                    ) : null}
                  </li>
                ) : null}
              </ul>
            </li>
          );
        })}
      </ol>
      <ListPager label="Violations" page={page} pageSize={EXPLANATION_PAGE_SIZE} total={ordered.length} onPage={setPage} />
    </>
  );
}
