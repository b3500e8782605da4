"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";

import { ExactTime } from "@/components/board/time-text";
import { LockChangeList } from "@/components/locks/lock-change-list";
import { LockNow } from "@/components/locks/lock-now";
import { LocksTable } from "@/components/locks/locks-table";
import { RangeControl } from "@/components/range-control";
import { ChangePager } from "@/components/timeline/change-pager";
import { AlertStrip } from "@/components/alerts/alert-strip";
import { SwimlaneChart } from "@/components/timeline/swimlane-chart";
import { alertMarkersQuery } from "@/lib/alerts/alert-queries";
import { prepareAlertSpans } from "@/lib/alerts/alert-spans";
import { TimelineLegend } from "@/components/timeline/timeline-legend";
import { OutdatedNotice } from "@/components/ui/outdated-notice";
import { consumerHref, lockHref } from "@/lib/board/links";
import { CHANGE_PAGE_SIZE } from "@/lib/client/live-reads";
import { lockChangesPageQuery, type LockPageRef, lockTimelineQuery } from "@/lib/locks/lock-queries";
import { useChangePages } from "@/lib/client/use-change-pages";
import { assignConsumerColors } from "@/lib/timeline/consumer-colors";
import { isLiveRange, RANGE_PRESET_WORDS, resolveRange, writeRangeSelection, type RangeSelection } from "@/lib/timeline/time-range";
import { timeTicks } from "@/lib/timeline/time-ticks";
import { fitLaneLabels } from "@/lib/timeline/lane-labels";

const NO_HOLDER_WORDS = "free (nobody holds it)";

function useTick(ms: number): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

function describeRange(selection: RangeSelection, from: string, to: string) {
  if (selection.preset === "since") return "since Baton first saw it (live)";
  if (selection.preset !== "custom") return `in the last ${RANGE_PRESET_WORDS[selection.preset]} (live)`;
  return (
    <>
      from <ExactTime iso={from} /> to <ExactTime iso={to} />
    </>
  );
}

export function LockView({
  lockRef,
  initialSelection,
  initialRange,
}: {
  lockRef: LockPageRef;
  initialSelection: RangeSelection;
  initialRange: { fromMs: number; toMs: number };
}) {
  const [selection, setSelection] = useState<RangeSelection>(initialSelection);
  const [allDeployments, setAllDeployments] = useState(false);
  const isLive = isLiveRange(selection);
  const range = useMemo(
    () => (selection === initialSelection ? initialRange : resolveRange(selection, Date.now())),
    [selection, initialSelection, initialRange],
  );
  const pages = useChangePages(JSON.stringify([selection]));
  const timelineQuery = useQuery(lockTimelineQuery(lockRef, range, { isLive, allDeployments }));
  const alertsQuery = useQuery(alertMarkersQuery({ cluster: lockRef.cluster, ...(lockRef.key ? { resource: lockRef.key } : {}) }, range, isLive));
  const changesQuery = useQuery(lockChangesPageQuery(lockRef, range, { isLive, cursor: pages.cursor }));
  const tick = useTick(1_000);

  useEffect(() => {
    const params = new URLSearchParams({
      cluster: lockRef.cluster,
      ...(lockRef.key ? { key: lockRef.key } : { pattern: lockRef.pattern ?? "" }),
      ...writeRangeSelection(selection),
    });
    if (window.location.search.replace(/^\?/, "") !== params.toString()) window.history.replaceState(null, "", `?${params}`);
  }, [selection, lockRef]);

  const data = timelineQuery.data;
  const colors = useMemo(() => assignConsumerColors(data?.timeline.consumers ?? []), [data?.timeline.consumers]);
  const xTicks = useMemo(
    () => (data ? timeTicks(Date.parse(data.timeline.from), Date.parse(data.timeline.to), 8, -new Date().getTimezoneOffset() * 60_000) : []),
    [data],
  );
  if (!data) {
    return timelineQuery.isError ? (
      <section className="panel empty-state unavailable" role="alert">
        <h2>Timeline unavailable</h2>
        <p>{timelineQuery.error.message}</p>
      </section>
    ) : (
      <p className="muted">Loading the lock…</p>
    );
  }

  const nowMs = tick ?? Date.parse(data.timeline.to);
  const isPattern = lockRef.key === null;
  const page = changesQuery.data;
  return (
    <>
      {timelineQuery.isError ? <OutdatedNotice what="the lock" reason={timelineQuery.error.message} readAt={timelineQuery.dataUpdatedAt} /> : null}
      <section className="panel" aria-label="Now">
        <h2>Now</h2>
        {isPattern ? (
          <LocksTable locks={data.locks} nowMs={nowMs} lockHref={lockHref} consumerHref={consumerHref} />
        ) : (
          data.locks.map((lock) => <LockNow key={lock.id} lock={lock} nowMs={nowMs} />)
        )}
      </section>

      <section className="panel" aria-label="Timeline">
        <h2>Who held it</h2>
        <div className="page-actions">
          <RangeControl selection={selection} range={range} onChange={setSelection} />
          <label className="filter-check">
            <input type="checkbox" checked={allDeployments} onChange={(event) => setAllDeployments(event.target.checked)} />
            <span>Show every deployment{data.unmatchedDeploymentCount > 0 ? ` (${data.unmatchedDeploymentCount} of other services in range)` : ""}</span>
          </label>
        </div>
        <SwimlaneChart timeline={data.timeline} colors={colors} nowMs={nowMs} xTicks={xTicks} noHolderWords={NO_HOLDER_WORDS} />
        <AlertStrip
          spans={prepareAlertSpans(alertsQuery.data?.alerts ?? [], Date.parse(data.timeline.from), Date.parse(data.timeline.to))}
          insetLeft={fitLaneLabels(data.timeline.lanes.map((lane) => lane.label)).width}
          insetRight={16}
        />
        <TimelineLegend consumers={data.timeline.consumers} colors={colors} isKeyShared={false} noHolderWords={NO_HOLDER_WORDS} isLock />
        <p className="chart-note">
          {data.timeline.changeCount} changes {describeRange(selection, data.timeline.from, data.timeline.to)}.
          {data.timeline.isDownsampled
            ? " Short tenures are merged (dashed bars) and markers bucketed to keep the chart readable; the list below is exact."
            : ""}
          {data.hiddenLockCount > 0 ? ` ${data.hiddenLockCount} more locks of this pattern are not drawn (the board lists them all).` : ""} A red marker is a
          hold that expired while held; a hatched gap is time Baton did not observe.
        </p>
      </section>

      <section className="panel" aria-label="Changes">
        <h2>
          Changes <span className="muted small">{page?.total ?? 0} in range, newest first</span>
        </h2>
        {!page ? (
          <p className="muted">{changesQuery.isError ? `Changes unavailable: ${changesQuery.error.message}` : "Loading the changes…"}</p>
        ) : page.changes.length === 0 ? (
          <p className="muted">No change in this range.</p>
        ) : (
          <>
            <LockChangeList
              changes={page.changes}
              cluster={lockRef.cluster}
              showKey={isPattern}
              caption="Changes of this lock, newest first"
              sourceKind={data.locks[0]?.sourceKind ?? null}
            />
            <ChangePager
              pageNumber={pages.pageNumber}
              pageSize={CHANGE_PAGE_SIZE}
              shown={page.changes.length}
              total={page.total}
              nextCursor={page.nextCursor}
              isLoading={changesQuery.isPlaceholderData}
              onNewest={pages.newest}
              onNewer={pages.newer}
              onOlder={pages.older}
            />
          </>
        )}
      </section>
    </>
  );
}
