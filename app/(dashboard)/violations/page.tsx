import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import { cookies } from "next/headers";

import { ViolationsView } from "@/app/(dashboard)/violations/violations-view";
import { EmptyState } from "@/components/ui/empty-state";
import { UnavailableNotice } from "@/components/ui/unavailable-notice";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { runQuery } from "@/lib/db/query-result";
import { fitRangeToData, isLiveRange, resolveRange } from "@/lib/timeline/time-range";
import { violationTimelineQuery } from "@/lib/violations/client/violation-queries";
import { getViolationTimeline } from "@/lib/violations/queries/get-violation-timeline";
import { getOldestEventMs } from "@/lib/violations/queries/get-oldest-data";
import { TIME_ZONE_COOKIE, timeZoneFromCookie } from "@/lib/violations/time-zone-cookie";
import { namesRange, readViolationsView } from "@/lib/violations/view-params";

export const dynamic = "force-dynamic";
export const metadata = { title: "Violations" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function ViolationsPage({ searchParams }: Props) {
  const params = await searchParams;
  const urlState = readViolationsView(params);
  const timeZone = timeZoneFromCookie((await cookies()).get(TIME_ZONE_COOKIE)?.value);
  const nowMs = Date.now();
  const filters = { service: urlState.service, subscription: urlState.subscription, environment: urlState.environment };
  const { deploymentGraceMs } = getConfig().violations;
  const db = getDb();
  // The top keys and workers read raw events (seconds over a busy day): the browser asks for
  // them after the page is shown, instead of the page waiting for them.
  const result = await runQuery(async () => {
    const oldestMs = await getOldestEventMs(db);
    if (oldestMs === null) return null;
    // Without a range in the URL, the page opens on one that fits the events there are.
    const state = namesRange(params) ? urlState : { ...urlState, range: fitRangeToData(oldestMs, nowMs) };
    const range = resolveRange(state.range, nowMs);
    return { state, range, timeline: await getViolationTimeline(db, { ...range, ...filters, timeZone, graceMs: deploymentGraceMs, nowMs }) };
  });

  const heading = (
    <>
      <h1>Violations</h1>
      <p className="page-lead">Did two workers ever hold the same key at once? Counter events, classified against the deployments that explain most of them.</p>
    </>
  );
  if (!result.isAvailable) {
    return (
      <>
        {heading}
        <UnavailableNotice what="Violations" reason={result.reason} />
      </>
    );
  }
  if (result.data === null) {
    return (
      <>
        {heading}
        <EmptyState title="No exclusivity-counter events yet">
          <p>
            Services report each increment of their per-key mutual-exclusivity counter to <code>POST /api/v1/exclusivity-events</code> (or to the configured
            Pulsar topic). A counter above zero at increment means another worker was inside: a violation.
          </p>
        </EmptyState>
      </>
    );
  }

  const { state, range } = result.data;
  const queryRange = { ...range, isLive: isLiveRange(state.range) };
  const queryClient = new QueryClient();
  queryClient.setQueryData(violationTimelineQuery(queryRange, filters, timeZone).queryKey, result.data.timeline);
  return (
    <>
      {heading}
      <HydrationBoundary state={dehydrate(queryClient)}>
        <ViolationsView initialState={state} initialRange={range} serverTimeZone={timeZone} serverNowMs={nowMs} />
      </HydrationBoundary>
    </>
  );
}
