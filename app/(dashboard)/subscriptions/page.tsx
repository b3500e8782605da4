import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import { notFound } from "next/navigation";

import { SubscriptionView } from "@/app/(dashboard)/subscriptions/subscription-view";
import { EmptyState } from "@/components/ui/empty-state";
import { UnavailableNotice } from "@/components/ui/unavailable-notice";
import { CHANGE_PAGE_SIZE } from "@/lib/client/live-reads";
import { subscriptionChangesPageQuery, subscriptionTimelineQuery } from "@/lib/subscriptions/subscription-queries";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { ApiError } from "@/lib/http/api-error";
import { getFirstSeen } from "@/lib/held-resources/get-first-seen";
import { getSubscriptionTimeline } from "@/lib/subscriptions/get-subscription-timeline";
import { listSubscriptionChanges } from "@/lib/subscriptions/list-subscription-changes";
import { runQuery } from "@/lib/db/query-result";
import { fitRangeToData, hasRangeParam, isLiveRange, readRangeSelection, resolveRange } from "@/lib/timeline/time-range";

export const dynamic = "force-dynamic";
export const metadata = { title: "Subscription" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

function first(value: string | string[] | undefined): string | null {
  const text = Array.isArray(value) ? value[0] : value;
  return text && text.trim() !== "" ? text : null;
}

export default async function SubscriptionPage({ searchParams }: Props) {
  const params = await searchParams;
  const cluster = first(params.cluster);
  const topic = first(params.topic);
  const subscription = first(params.subscription);
  if (!cluster || !topic || !subscription) {
    return (
      <>
        <h1>Subscription</h1>
        <EmptyState title="No subscription chosen">
          <p>Open a subscription from the Leaders board: its page shows who held each partition over time, and every change.</p>
        </EmptyState>
      </>
    );
  }
  const ref = { cluster, topic, subscription };
  const heading = (
    <>
      <h1>{subscription}</h1>
      <p className="page-lead">
        <span className="mono">{topic}</span> on cluster <strong>{cluster}</strong>
      </p>
    </>
  );
  const config = getConfig();
  // An unknown cluster or subscription is a 404, not an empty page answered 200.
  if (!config.clusters.some((c) => c.name === cluster)) notFound();

  const db = getDb();
  const nowMs = Date.now();
  const result = await runQuery(async () => {
    // Without a range in the URL, the page opens on one that fits what Baton knows of it.
    const selection = hasRangeParam(params) ? readRangeSelection(params) : fitRangeToData(await getFirstSeen(db, { kind: "subscription", ...ref }), nowMs);
    const range = resolveRange(selection, nowMs);
    try {
      const [timeline, changes] = await Promise.all([
        getSubscriptionTimeline(db, { ...ref, ...range, thresholds: config.board, nowMs }),
        listSubscriptionChanges(db, { ...ref, ...range, limit: CHANGE_PAGE_SIZE }),
      ]);
      return { isFound: true as const, selection, range, timeline, changes };
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return { isFound: false as const };
      throw error;
    }
  });
  if (!result.isAvailable) {
    return (
      <>
        {heading}
        <UnavailableNotice what="This subscription" reason={result.reason} />
      </>
    );
  }
  if (!result.data.isFound) notFound();

  const { selection, range } = result.data;
  const isLive = isLiveRange(selection);
  const queryClient = new QueryClient();
  queryClient.setQueryData(subscriptionTimelineQuery(ref, range, { isLive, allDeployments: false }).queryKey, result.data.timeline);
  queryClient.setQueryData(subscriptionChangesPageQuery(ref, range, { isLive, cursor: null }).queryKey, result.data.changes);
  return (
    <>
      {heading}
      <HydrationBoundary state={dehydrate(queryClient)}>
        <SubscriptionView subscriptionRef={ref} initialSelection={selection} initialRange={range} />
      </HydrationBoundary>
    </>
  );
}
