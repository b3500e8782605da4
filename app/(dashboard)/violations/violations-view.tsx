"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";

import { AlertStrip } from "@/components/alerts/alert-strip";
import { RangeControl } from "@/components/range-control";
import { OutdatedNotice } from "@/components/ui/outdated-notice";
import { CauseHeadline } from "@/components/violations/cause-headline";
import { CauseList } from "@/components/violations/cause-list";
import { TimelineTable } from "@/components/violations/timeline-table";
import { TopList, type TopListRow } from "@/components/violations/top-list";
import { ViolationChart } from "@/components/violations/violation-chart";
import { ViolationFilters } from "@/components/violations/violation-filters";
import { ViolationLegend } from "@/components/violations/violation-legend";
import { alertMarkersQuery } from "@/lib/alerts/alert-queries";
import { alertsOfService, prepareAlertSpans } from "@/lib/alerts/alert-spans";
import { isLiveRange, resolveRange } from "@/lib/timeline/time-range";
import { evenTicks } from "@/lib/timeline/even-ticks";
import { maxViolations, toChartPoints, withCauses } from "@/lib/violations/chart-data";
import { useReaderTimeZone } from "@/lib/violations/client/use-reader-time-zone";
import {
  leaderChangeMarkersQuery,
  topViolationsQuery,
  violationCausesQuery,
  violationTimelineQuery,
  type QueryRange,
} from "@/lib/violations/client/violation-queries";
import { formatBucketSize, formatDuration } from "@/lib/violations/format";
import { drilldownHref, writeViolationsView, type ViolationsViewState } from "@/lib/violations/view-params";
import { type CauseCounts, causePhrase } from "@/lib/violations/cause-words";
import { countCausesBy, mainCause } from "@/lib/violations/violation-cause";
import { assignServiceColors } from "@/lib/violations/violation-colors";
import type { ViolationTimeline } from "@/lib/violations/violation-types";

/** The lists the page asks the top endpoint for: services and subscriptions come with the timeline. */
const PAGE_TOP_LISTS = "keys,workers";

const CHART_HEIGHT = 300;
const SPLIT_CHART_HEIGHT = 150;

/** Every name seen since the page opened: filter choices stay when a filter narrows the answer. */
function useChoices(timeline: ViolationTimeline | undefined) {
  const [seen, setSeen] = useState<{ services: string[]; subscriptions: string[]; environments: string[] }>({
    services: [],
    subscriptions: [],
    environments: [],
  });
  useEffect(() => {
    if (!timeline) return;
    setSeen((previous) => {
      const merge = (old: string[], next: string[]) => {
        const all = [...new Set([...old, ...next])].sort();
        return all.length === old.length ? old : all;
      };
      const services = merge(
        previous.services,
        timeline.services.map((s) => s.name),
      );
      const subscriptions = merge(
        previous.subscriptions,
        timeline.subscriptions.map((s) => s.subscription),
      );
      const environments = merge(
        previous.environments,
        timeline.deployments.map((d) => d.environment),
      );
      return services === previous.services && subscriptions === previous.subscriptions && environments === previous.environments
        ? previous
        : { services, subscriptions, environments };
    });
  }, [timeline]);
  return seen;
}

function useNow(intervalMs: number, initialMs: number): number {
  const [now, setNow] = useState(initialMs);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

export function ViolationsView({
  initialState,
  initialRange,
  serverTimeZone,
  serverNowMs,
}: {
  initialState: ViolationsViewState;
  initialRange: { fromMs: number; toMs: number };
  serverTimeZone: string;
  serverNowMs: number;
}) {
  const [state, setState] = useState(initialState);
  const timeZone = useReaderTimeZone(serverTimeZone);
  const nowMs = useNow(15_000, serverNowMs);
  const range = useMemo(
    () => (state.range === initialState.range ? initialRange : resolveRange(state.range, Date.now())),
    [state.range, initialState.range, initialRange],
  );
  const isLive = isLiveRange(state.range);
  const queryRange = useMemo<QueryRange>(() => ({ ...range, isLive }), [range, isLive]);
  const filters = useMemo(
    () => ({ service: state.service, subscription: state.subscription, environment: state.environment }),
    [state.service, state.subscription, state.environment],
  );

  const timelineQuery = useQuery(violationTimelineQuery(queryRange, filters, timeZone));
  const topQuery = useQuery(topViolationsQuery(queryRange, filters, { ranking: state.ranking, lists: PAGE_TOP_LISTS }));
  // Every cause's count comes with the list, whichever cause it is filtered to.
  const causesQuery = useQuery(violationCausesQuery(queryRange, filters, state.cause));
  // The chart stacks every cause: the unfiltered answer (the same query when no cause is chosen).
  const chartCausesQuery = useQuery(violationCausesQuery(queryRange, filters, null));
  const alertsQuery = useQuery(alertMarkersQuery({ rule: "violations", service: state.service }, range, isLive));
  const markersQuery = useQuery({ ...leaderChangeMarkersQuery(queryRange, state.subscription, timeZone), enabled: state.showLeaderChanges });
  const choices = useChoices(timelineQuery.data);

  useEffect(() => {
    const query = writeViolationsView(state).toString();
    if (window.location.search.replace(/^\?/, "") !== query) window.history.replaceState(null, "", `?${query}`);
  }, [state]);

  const timeline = timelineQuery.data;
  const chartCauses = chartCausesQuery.data;
  const points = useMemo(
    () => (timeline ? (chartCauses ? withCauses(toChartPoints(timeline.buckets), chartCauses.violations) : toChartPoints(timeline.buckets)) : []),
    [timeline, chartCauses],
  );
  const serviceOrder = useMemo(() => timeline?.services.map((s) => s.name) ?? [], [timeline]);
  const serviceColors = useMemo(() => assignServiceColors(serviceOrder), [serviceOrder]);
  const splitPoints = useMemo(
    () =>
      timeline && state.mode === "split"
        ? serviceOrder.map((service) => ({
            service,
            points: chartCauses
              ? withCauses(toChartPoints(timeline.buckets, service), chartCauses.violations, service)
              : toChartPoints(timeline.buckets, service),
          }))
        : [],
    [timeline, state.mode, serviceOrder, chartCauses],
  );
  const yScale = useMemo(() => evenTicks(maxViolations(points)), [points]);
  const splitYScale = useMemo(() => evenTicks(splitPoints.reduce((max, s) => Math.max(max, maxViolations(s.points)), 1)), [splitPoints]);

  if (!timeline) {
    return timelineQuery.isError ? (
      <section className="panel empty-state unavailable" role="alert">
        <h2>Violations unavailable</h2>
        <p>{timelineQuery.error.message}</p>
      </section>
    ) : (
      <p className="muted">Loading violations…</p>
    );
  }

  const update = (patch: Partial<ViolationsViewState>) => setState((previous) => ({ ...previous, ...patch }));
  const markers = state.showLeaderChanges ? (markersQuery.data ?? null) : null;
  // The main cause of each key and worker, from the latest violations' causes (when listed unfiltered).
  const classified = state.cause === null ? (causesQuery.data?.violations ?? []) : [];
  const causeWords = (counts: ReadonlyMap<string, CauseCounts>, name: string) => {
    const found = counts.get(name);
    const main = found ? mainCause(found) : null;
    return main === null ? undefined : `mostly ${causePhrase(main)}`;
  };
  const keyCauses = countCausesBy(classified, (v) => v.key);
  const workerCauses = countCausesBy(classified, (v) => v.worker);
  const keyRows: TopListRow[] = (topQuery.data?.keys ?? []).map((k) => ({
    id: k.name,
    ...k,
    detail: causeWords(keyCauses, k.name),
    href: drilldownHref({ key: k.name, range: state.range }),
  }));
  const workerRows: TopListRow[] = (topQuery.data?.workers ?? []).map((w) => ({ id: w.name, ...w, detail: causeWords(workerCauses, w.name) }));
  const rank = (a: { violations: number; outside: number }, b: { violations: number; outside: number }) =>
    state.ranking === "outside" ? b.outside - a.outside || b.violations - a.violations : b.violations - a.violations || b.outside - a.outside;
  const serviceRows: TopListRow[] = timeline.services
    .filter((s) => s.violations > 0)
    .sort(rank)
    .slice(0, 10)
    .map((s) => ({ id: s.name, ...s }));
  const subscriptionRows: TopListRow[] = timeline.subscriptions
    .filter((s) => s.violations > 0)
    .sort(rank)
    .slice(0, 10)
    .map((s) => ({
      id: `${s.service}/${s.subscription}`,
      name: s.subscription || "(no subscription)",
      detail: s.service,
      violations: s.violations,
      outside: s.outside,
      inside: s.inside,
    }));
  // A failed read is not "no violation": say it could not be read.
  const rawListEmptyText = topQuery.isError ? `Unavailable: ${topQuery.error.message}` : topQuery.isPending ? "Loading…" : "No violation in this range.";

  return (
    <>
      {timelineQuery.isError ? <OutdatedNotice what="the violations" reason={timelineQuery.error.message} readAt={timelineQuery.dataUpdatedAt} /> : null}
      <CauseHeadline
        totals={timeline.totals}
        trend={timeline.trend}
        causes={causesQuery.data ? { counts: causesQuery.data.counts, isTruncated: causesQuery.data.isTruncated, limit: causesQuery.data.limit } : null}
        causesError={causesQuery.isError ? causesQuery.error.message : null}
        timeZone={timeZone}
      />

      <section className="panel" aria-label="Violations over time">
        <h2>Violations over time</h2>
        <div className="vio-actions">
          <RangeControl selection={state.range} range={range} timeZone={timeZone} onChange={(selection) => update({ range: selection })} />
        </div>
        <ViolationFilters
          choices={choices}
          service={state.service}
          subscription={state.subscription}
          environment={state.environment}
          mode={state.mode}
          showLeaderChanges={state.showLeaderChanges}
          onChange={update}
        />
        {state.mode === "split" ? (
          splitPoints.length === 0 ? (
            <p className="muted">No service reported events in this range.</p>
          ) : (
            <div className="vio-split-charts">
              {splitPoints.map(({ service, points: servicePoints }) => (
                <div key={service} className="vio-split-chart" data-testid="split-chart" data-service={service}>
                  <h3>{service}</h3>
                  <ViolationChart
                    label={`Violations of ${service} per ${formatBucketSize(timeline.bucketMs)}, stacked by cause`}
                    points={servicePoints}
                    mode="classification"
                    serviceOrder={serviceOrder}
                    serviceColors={serviceColors}
                    deployments={timeline.deployments}
                    service={service}
                    markers={markers}
                    bucketMs={timeline.bucketMs}
                    timeZone={timeZone}
                    nowMs={nowMs}
                    yScale={splitYScale}
                    height={SPLIT_CHART_HEIGHT}
                  />
                  {servicePoints.length > 0 ? (
                    <AlertStrip
                      spans={prepareAlertSpans(
                        alertsOfService(alertsQuery.data?.alerts ?? [], service),
                        servicePoints[0]!.start,
                        servicePoints[servicePoints.length - 1]!.end,
                      )}
                      insetLeft={44}
                      insetRight={16}
                    />
                  ) : null}
                </div>
              ))}
            </div>
          )
        ) : (
          <ViolationChart
            label={`Violations per ${formatBucketSize(timeline.bucketMs)}, ${state.mode === "services" ? "stacked by service" : "stacked by cause"}`}
            points={points}
            mode={state.mode}
            serviceOrder={serviceOrder}
            serviceColors={serviceColors}
            deployments={timeline.deployments}
            service={null}
            markers={markers}
            bucketMs={timeline.bucketMs}
            timeZone={timeZone}
            nowMs={nowMs}
            yScale={yScale}
            height={CHART_HEIGHT}
          />
        )}
        {state.mode !== "split" && points.length > 0 ? (
          <AlertStrip
            spans={prepareAlertSpans(alertsQuery.data?.alerts ?? [], points[0]!.start, points[points.length - 1]!.end)}
            insetLeft={44}
            insetRight={16}
          />
        ) : null}
        <ViolationLegend
          mode={state.mode === "services" ? "services" : "classification"}
          serviceColors={serviceColors}
          showLeaderChanges={state.showLeaderChanges}
          hasUnclassified={(state.mode === "split" ? splitPoints.flatMap((s) => s.points) : points).some(
            (p) => (p.causes === null ? (p.counts?.outside ?? 0) : p.causes.unclassified) > 0,
          )}
          classifiedLimit={chartCauses?.isTruncated ? chartCauses.limit : null}
          hasAlerts={(alertsQuery.data?.alerts.length ?? 0) > 0}
        />
        <p className="vio-note">
          One bar per {formatBucketSize(timeline.bucketMs)} ({timeZone}){isLive ? ", live" : ""}. A violation&apos;s cause is rollout when a deployment of its
          own service
          {timeline.environment === null ? "" : ` in ${timeline.environment}`} covers it, from its start to its finish plus {formatDuration(timeline.graceMs)}.
          An unfinished deployment counts until now, for a day at most. Counts come from per-minute rollups, so windows count in whole minutes: from the minute
          a deployment starts in through the minute its grace period ends in.
          {timeline.deployments.length > 0 ? ` ${timeline.deployments.length} deployments overlap the range.` : " No deployment overlaps the range."}
          {markers ? ` ${markers.total} leader changes${state.subscription === null ? "" : ` of ${state.subscription}`}.` : ""}
        </p>
        <TimelineTable buckets={timeline.buckets} timeZone={timeZone} />
      </section>

      <div className="vio-top-header">
        <h2>Top in this range</h2>
        <div className="vio-segmented" role="radiogroup" aria-label="Rank by">
          {/* biome-ignore lint/a11y/useSemanticElements: a segmented button bar (ARIA radio pattern); native radios would need hidden inputs and labels styled as buttons */}
          <button type="button" role="radio" aria-checked={state.ranking === "violations"} onClick={() => update({ ranking: "violations" })}>
            All violations
          </button>
          {/* biome-ignore lint/a11y/useSemanticElements: a segmented button bar (ARIA radio pattern); native radios would need hidden inputs and labels styled as buttons */}
          <button type="button" role="radio" aria-checked={state.ranking === "outside"} onClick={() => update({ ranking: "outside" })}>
            Outside rollouts
          </button>
        </div>
      </div>
      <div className="vio-top-lists">
        <TopList title="Keys" testId="top-keys" rows={keyRows} emptyText={rawListEmptyText} />
        <TopList title="Workers" testId="top-workers" rows={workerRows} emptyText={rawListEmptyText} />
        <TopList title="Services" testId="top-services" rows={serviceRows} emptyText="No violation in this range." />
        <TopList title="Subscriptions" testId="top-subscriptions" rows={subscriptionRows} emptyText="No violation in this range." />
      </div>
      <CauseList
        cause={state.cause}
        counts={causesQuery.data?.counts ?? null}
        violations={causesQuery.data?.violations ?? []}
        isTruncated={causesQuery.data?.isTruncated ?? false}
        emptyText={
          causesQuery.isError ? `Unavailable: ${causesQuery.error.message}` : causesQuery.isPending ? "Loading…" : "No violation of this cause in this range."
        }
        timeZone={timeZone}
        onCauseChange={(cause) => update({ cause })}
      />
    </>
  );
}
