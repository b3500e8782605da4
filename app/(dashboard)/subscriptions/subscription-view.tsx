"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useMemo, useState } from "react";

import { JoinPreview } from "@/app/(dashboard)/subscriptions/join-preview";
import { AlertStrip } from "@/components/alerts/alert-strip";
import { FlagDetails, FlagList, HealthWord } from "@/components/board/health-flags";
import { NextHolderCell } from "@/components/board/next-holder-cell";
import { AgoTime, ClockTime, ExactTime, TenureTime } from "@/components/board/time-text";
import { HashRingChart } from "@/components/charts/hash-ring-chart";
import { RangeControl } from "@/components/range-control";
import { ChangeList } from "@/components/timeline/change-list";
import { ChangePager } from "@/components/timeline/change-pager";
import { SwimlaneChart } from "@/components/timeline/swimlane-chart";
import { TimelineLegend } from "@/components/timeline/timeline-legend";
import { OutdatedNotice } from "@/components/ui/outdated-notice";
import { alertMarkersQuery } from "@/lib/alerts/alert-queries";
import { prepareAlertSpans } from "@/lib/alerts/alert-spans";
import { staleReasonOf } from "@/lib/board/board-lines";
import type { LeaderRow } from "@/lib/board/board-types";
import { formatCount, formatShare } from "@/lib/board/format";
import { consumerHref } from "@/lib/board/links";
import { CHANGE_PAGE_SIZE } from "@/lib/client/live-reads";
import { subscriptionChangesPageQuery, type SubscriptionRef, subscriptionTimelineQuery } from "@/lib/subscriptions/subscription-queries";
import { useChangePages } from "@/lib/client/use-change-pages";
import type { PartitionDetail } from "@/lib/subscriptions/get-subscription-timeline";
import { assignConsumerColors } from "@/lib/timeline/consumer-colors";
import { buildHashRing } from "@/lib/timeline/hash-ring";
import { isLiveRange, RANGE_PRESET_WORDS, resolveRange, writeRangeSelection, type RangeSelection } from "@/lib/timeline/time-range";
import { timeTicks } from "@/lib/timeline/time-ticks";
import { fitLaneLabels } from "@/lib/timeline/lane-labels";

/** Rings drawn at most: a Key_Shared topic with more partitions shows the first ones. */
const MAX_RINGS = 8;

function useTick(ms: number): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

function HolderText({ row, isShared }: { row: LeaderRow; isShared: boolean }) {
  if (row.staleSince !== null) return <span className="last-known">last known: {isShared ? `${row.consumerCount} consumers` : (row.holder ?? "none")}</span>;
  if (isShared) return row.consumerCount === 0 ? <strong className="loud">No consumers</strong> : <span>{row.consumerCount} consumers share it</span>;
  if (row.holder === null) return <strong className="loud">No active consumer</strong>;
  return (
    <Link prefetch={false} href={consumerHref(row.holder)}>
      {row.holder}
    </Link>
  );
}

function ConsumerTable({ partitions, nowMs }: { partitions: PartitionDetail[]; nowMs: number }) {
  const byName = new Map<
    string,
    { name: string; partitions: number[]; connectedSince: string | null; address: string | null; clientVersion: string | null; msgRateOut: number }
  >();
  for (const p of partitions) {
    for (const c of p.consumers) {
      const entry = byName.get(c.name) ?? {
        name: c.name,
        partitions: [],
        connectedSince: c.connectedSince,
        address: c.address,
        clientVersion: c.clientVersion,
        msgRateOut: 0,
      };
      entry.partitions.push(p.partition);
      entry.msgRateOut += c.msgRateOut ?? 0;
      if (c.connectedSince && (!entry.connectedSince || c.connectedSince < entry.connectedSince)) entry.connectedSince = c.connectedSince;
      byName.set(c.name, entry);
    }
  }
  const rows = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  if (rows.length === 0) return <p className="muted">No consumer is connected.</p>;
  return (
    <table className="data">
      <thead>
        <tr>
          <th scope="col">Consumer</th>
          <th scope="col">Connected since</th>
          <th scope="col">Msg/s out</th>
          <th scope="col">Address</th>
          <th scope="col">Client</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((c) => (
          <tr key={c.name}>
            <td>
              <Link prefetch={false} href={consumerHref(c.name)}>
                {c.name}
              </Link>
            </td>
            <td>{c.connectedSince ? <ClockTime iso={new Date(c.connectedSince).toISOString()} nowMs={nowMs} /> : "?"}</td>
            <td>{c.msgRateOut.toFixed(1)}</td>
            <td className="mono">{c.address ?? "?"}</td>
            <td className="mono">{c.clientVersion ?? "?"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function SubscriptionView({
  subscriptionRef,
  initialSelection,
  initialRange,
}: {
  subscriptionRef: SubscriptionRef;
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
  const timelineQuery = useQuery(subscriptionTimelineQuery(subscriptionRef, range, { isLive, allDeployments }));
  const alertsQuery = useQuery(
    alertMarkersQuery({ cluster: subscriptionRef.cluster, resource: subscriptionRef.topic, subscription: subscriptionRef.subscription }, range, isLive),
  );
  const pages = useChangePages(JSON.stringify([selection]));
  const changesQuery = useQuery(subscriptionChangesPageQuery(subscriptionRef, range, { isLive, cursor: pages.cursor }));
  const tick = useTick(5_000);

  useEffect(() => {
    const params = new URLSearchParams({ ...subscriptionRef, ...writeRangeSelection(selection) });
    if (window.location.search.replace(/^\?/, "") !== params.toString()) window.history.replaceState(null, "", `?${params}`);
  }, [selection, subscriptionRef]);

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
      <p className="muted">Loading the timeline…</p>
    );
  }

  const nowMs = tick ?? Date.parse(data.timeline.to);
  const group = data.subscription;
  const isShared = group.subscriptionType === "Key_Shared";
  const rings = data.partitions.filter((p) => p.hashRanges !== null).slice(0, MAX_RINGS);
  const changePage = changesQuery.data;
  const changes = changePage?.changes ?? [];
  const total = changePage?.total ?? 0;

  return (
    <>
      {timelineQuery.isError ? <OutdatedNotice what="the timeline" reason={timelineQuery.error.message} readAt={timelineQuery.dataUpdatedAt} /> : null}
      <section className="panel" aria-label="Now">
        <h2>
          Now: <HealthWord health={group.health} /> <span className="muted small">{group.subscriptionType ?? "type unknown"}</span>
        </h2>
        <FlagDetails flags={group.flags} nowMs={nowMs} />
        <table className="data" aria-label="Partitions now">
          <thead>
            <tr>
              <th scope="col">Partition</th>
              <th scope="col">{isShared ? "Consumers" : "Active consumer"}</th>
              <th scope="col">Tenure</th>
              <th scope="col">Standbys</th>
              <th scope="col">Next</th>
              <th scope="col">Backlog</th>
              <th scope="col">Last change</th>
              <th scope="col">Health</th>
            </tr>
          </thead>
          <tbody>
            {group.partitions.map((row) => (
              <tr key={row.partition}>
                <th scope="row">{row.partition < 0 ? "(not partitioned)" : `Partition ${row.partition}`}</th>
                <td>
                  <HolderText row={row} isShared={isShared} />
                  {isShared && row.hashShares ? (
                    <div className="muted small">{row.hashShares.map((s) => `${s.consumer} ${formatShare(s.share)}`).join(", ")}</div>
                  ) : null}
                </td>
                <td>{row.staleSince === null && row.holder && row.holderSince ? <TenureTime iso={row.holderSince} nowMs={nowMs} /> : "—"}</td>
                <td>{row.staleSince === null ? row.standbys.join(", ") || "none" : "—"}</td>
                <td>{row.staleSince === null ? <NextHolderCell next={row.next} consumerHref={consumerHref} /> : "—"}</td>
                <td>{formatCount(row.backlog)}</td>
                <td>{row.lastChangeAt ? <AgoTime iso={row.lastChangeAt} nowMs={nowMs} /> : "none seen"}</td>
                <td>
                  <FlagList flags={row.flags} nowMs={nowMs} max={3} />
                  {staleReasonOf(row) ? <div className="stale-reason">{staleReasonOf(row)}</div> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      {group.subscriptionType === "Failover" ? <JoinPreview group={group} /> : null}

      <section className="panel" aria-label="Timeline">
        <h2>Who held it</h2>
        <div className="page-actions">
          <RangeControl selection={selection} range={range} onChange={setSelection} />
          <label className="filter-check">
            <input type="checkbox" checked={allDeployments} onChange={(event) => setAllDeployments(event.target.checked)} />
            <span>Show every deployment{data.unmatchedDeploymentCount > 0 ? ` (${data.unmatchedDeploymentCount} of other services in range)` : ""}</span>
          </label>
        </div>
        <SwimlaneChart timeline={data.timeline} colors={colors} nowMs={nowMs} xTicks={xTicks} />
        <AlertStrip
          spans={prepareAlertSpans(alertsQuery.data?.alerts ?? [], Date.parse(data.timeline.from), Date.parse(data.timeline.to))}
          insetLeft={fitLaneLabels(data.timeline.lanes.map((lane) => lane.label)).width}
          insetRight={16}
        />
        <TimelineLegend consumers={data.timeline.consumers} colors={colors} isKeyShared={isShared} />
        <p className="chart-note">
          {data.timeline.changeCount} changes{" "}
          {selection.preset === "since" ? (
            "since Baton first saw it (live)"
          ) : selection.preset !== "custom" ? (
            `in the last ${RANGE_PRESET_WORDS[selection.preset]} (live)`
          ) : (
            <>
              from <ExactTime iso={data.timeline.from} /> to <ExactTime iso={data.timeline.to} />
            </>
          )}
          .
          {data.timeline.isDownsampled
            ? " Short tenures are merged (dashed bars) and markers bucketed to keep the chart readable; the list below is exact."
            : ""}{" "}
          Deployment bands: deployments whose service is the subscription&apos;s name or a prefix of a consumer&apos;s name.
        </p>
      </section>

      {rings.length > 0 ? (
        <section className="panel" aria-label="Hash ranges">
          <h2>Key_Shared hash ranges now</h2>
          <div className="ring-grid">
            {rings.map((p) => (
              <HashRingChart
                key={p.partition}
                slices={buildHashRing(p.hashRanges!)}
                space={p.hashRanges!.space}
                colors={colors}
                label={p.partition < 0 ? "the topic" : `partition ${p.partition}`}
              />
            ))}
          </div>
        </section>
      ) : null}

      <section className="panel" aria-label="Consumers">
        <h2>Consumers</h2>
        <ConsumerTable partitions={data.partitions} nowMs={nowMs} />
      </section>

      <section className="panel" aria-label="Changes">
        <h2>
          Changes <span className="muted small">{total} in range, newest first</span>
        </h2>
        {changes.length === 0 ? (
          <p className="muted">No change in this range.</p>
        ) : (
          <>
            <ChangeList changes={changes} caption="Changes of this subscription, newest first" />
            <ChangePager
              pageNumber={pages.pageNumber}
              pageSize={CHANGE_PAGE_SIZE}
              shown={changes.length}
              total={total}
              nextCursor={changePage?.nextCursor ?? null}
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
