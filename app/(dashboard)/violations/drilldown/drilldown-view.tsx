"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useMemo, useState } from "react";

import { RangeControl } from "@/components/range-control";
import { DeploymentBandTable } from "@/components/violations/deployment-band-table";
import { EventTable } from "@/components/violations/event-table";
import { ExplanationList } from "@/components/violations/explanation-list";
import { LeaderChangeTable } from "@/components/violations/leader-change-table";
import { WorkerLanesChart } from "@/components/violations/worker-lanes-chart";
import { WorkerTable } from "@/components/violations/worker-table";
import { isLiveRange, resolveRange, type RangeSelection } from "@/lib/timeline/time-range";
import { causeOrderPhrase } from "@/lib/violations/cause-words";
import { describeCauseCounts } from "@/lib/violations/describe-cause";
import { useReaderTimeZone } from "@/lib/violations/client/use-reader-time-zone";
import { drilldownQuery, type DrilldownTarget } from "@/lib/violations/client/violation-queries";
import { formatCount, formatDuration, formatInstant } from "@/lib/violations/format";
import { writeRange } from "@/lib/violations/view-params";
import { buildWorkerLanes } from "@/lib/violations/worker-lanes";

type Props =
  | {
      mode: "key";
      drilldownKey: string;
      initialSelection: RangeSelection;
      initialRange: { fromMs: number; toMs: number };
      serverTimeZone: string;
      serverNowMs: number;
    }
  | { mode: "event"; eventId: string; at: string | null; serverTimeZone: string; serverNowMs: number };

export function DrilldownView(props: Props) {
  const timeZone = useReaderTimeZone(props.serverTimeZone);
  const [selection, setSelection] = useState<RangeSelection | null>(props.mode === "key" ? props.initialSelection : null);
  const target = useMemo<DrilldownTarget>(() => {
    if (props.mode === "event" || selection === null)
      return { kind: "event", eventId: props.mode === "event" ? props.eventId : "", at: props.mode === "event" ? props.at : null };
    const range = selection === props.initialSelection ? props.initialRange : resolveRange(selection, Date.now());
    return { kind: "key", key: props.drilldownKey, range: { ...range, isLive: isLiveRange(selection) } };
  }, [props, selection]);
  const query = useQuery(drilldownQuery(target));

  useEffect(() => {
    if (props.mode !== "key" || selection === null) return;
    const params = new URLSearchParams({ key: props.drilldownKey, ...writeRange(selection) }).toString();
    if (window.location.search.replace(/^\?/, "") !== params) window.history.replaceState(null, "", `?${params}`);
  }, [props, selection]);

  const drilldown = query.data;
  const lanes = useMemo(() => (drilldown ? buildWorkerLanes(drilldown, props.serverNowMs) : null), [drilldown, props.serverNowMs]);
  if (!drilldown || !lanes) {
    return query.isError ? (
      <section className="panel empty-state unavailable" role="alert">
        <h2>Drill-down unavailable</h2>
        <p>{query.error.message}</p>
      </section>
    ) : (
      <p className="muted">Loading the drill-down…</p>
    );
  }

  const rangeFromMs = Date.parse(drilldown.from);
  const isBeforeRetention = rangeFromMs < Date.parse(drilldown.rawSince);
  return (
    <>
      <section className="panel" aria-label="Summary">
        <p className="vio-cause-lead" data-testid="drilldown-causes">
          {describeCauseCounts(drilldown.causes)}
        </p>
        <div className="vio-actions">
          {selection !== null ? (
            <RangeControl selection={selection} range={{ fromMs: rangeFromMs, toMs: Date.parse(drilldown.to) }} timeZone={timeZone} onChange={setSelection} />
          ) : (
            <span className="muted">
              {formatInstant(drilldown.from, timeZone)} to {formatInstant(drilldown.to, timeZone)} around this event.{" "}
              <Link href={`/violations/drilldown?${new URLSearchParams({ key: drilldown.key, range: "24h" })}`}>The key over the last 24 h</Link>
            </span>
          )}
        </div>
        <dl className="vio-summary">
          <div>
            <dt>Outside rollouts</dt>
            <dd className="vio-outside" data-testid="drilldown-outside">
              {formatCount(drilldown.counts.outside)}
            </dd>
          </div>
          <div>
            <dt>Rollout</dt>
            <dd className="vio-inside" data-testid="drilldown-inside">
              {formatCount(drilldown.counts.inside)}
            </dd>
          </div>
          <div>
            <dt>Entries</dt>
            <dd data-testid="drilldown-events">{formatCount(drilldown.counts.events)}</dd>
          </div>
          <div>
            <dt>Workers</dt>
            <dd data-testid="drilldown-workers">{formatCount(drilldown.workers.length)}</dd>
          </div>
        </dl>
        {drilldown.isTruncated ? (
          <p className="muted">
            Showing the latest {formatCount(drilldown.eventLimit)} events of {formatCount(drilldown.counts.events)}: narrow the range to see the others.
          </p>
        ) : null}
        {isBeforeRetention ? (
          <p className="muted">
            Raw events before {formatInstant(drilldown.rawSince, timeZone)} have been deleted by retention; the counts above cover what remains.
          </p>
        ) : null}
      </section>

      <section className="panel" aria-label="Violations explained">
        <h2>Violations and their causes</h2>
        <p className="vio-note">
          Each violation&apos;s cause comes first, the first whose evidence holds ({causeOrderPhrase()}), then its evidence. Deployments count when one of the
          event&apos;s own service covers it (start to finish plus {formatDuration(drilldown.graceMs)}); leader and lock changes within ±
          {formatDuration(drilldown.windowMs)}.
        </p>
        <ExplanationList drilldown={drilldown} timeZone={timeZone} />
      </section>

      <section className="panel" aria-label="Workers">
        <h2>Workers and how their entries overlapped</h2>
        {lanes.workers.length > 0 ? <WorkerLanesChart lanes={lanes} timeZone={timeZone} /> : null}
        <WorkerTable workers={drilldown.workers} overlaps={drilldown.overlaps} timeZone={timeZone} />
      </section>

      <section className="panel" aria-label="Leader changes">
        <h2>Leader changes nearby</h2>
        {drilldown.leaderChanges.length === 0 ? (
          <p className="muted" data-testid="no-leader-changes">
            No leader change of the key&apos;s subscription partitions within ±{formatDuration(drilldown.windowMs)} of its events
            {drilldown.events.some((e) => e.resource === null) ? " (some events name no topic or subscription, so nothing can be matched for them)" : ""}.
          </p>
        ) : (
          <LeaderChangeTable changes={drilldown.leaderChanges} timeZone={timeZone} />
        )}
      </section>

      <section className="panel" aria-label="Deployments">
        <h2>Deployments nearby</h2>
        {drilldown.deployments.length === 0 ? (
          <p className="muted">No deployment within ±{formatDuration(drilldown.windowMs)} of the key&apos;s events.</p>
        ) : (
          <DeploymentBandTable deployments={drilldown.deployments} timeZone={timeZone} />
        )}
      </section>

      <section className="panel" aria-label="Events">
        <h2>
          Events <span className="muted vio-small">{formatCount(drilldown.events.length)}, newest first</span>
        </h2>
        <EventTable events={drilldown.events} focusEventId={drilldown.focusEventId} timeZone={timeZone} />
      </section>
    </>
  );
}
