import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import { notFound } from "next/navigation";

import { LocksIndexView } from "@/app/(dashboard)/locks/locks-index-view";
import { LockView } from "@/app/(dashboard)/locks/lock-view";
import { UnavailableNotice } from "@/components/ui/unavailable-notice";
import { CHANGE_PAGE_SIZE } from "@/lib/client/live-reads";
import { lockChangesPageQuery, type LockPageRef, lockTimelineQuery } from "@/lib/locks/lock-queries";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { ApiError } from "@/lib/http/api-error";
import { getFirstSeen } from "@/lib/held-resources/get-first-seen";
import { getLockTimeline, type LockRef } from "@/lib/locks/get-lock-timeline";
import { listLockChanges } from "@/lib/locks/list-lock-changes";
import { ALL_LOCKS, listLocks } from "@/lib/locks/list-locks";
import { runQuery } from "@/lib/db/query-result";
import { fitRangeToData, hasRangeParam, isLiveRange, readRangeSelection, resolveRange } from "@/lib/timeline/time-range";

export const dynamic = "force-dynamic";
export const metadata = { title: "Locks" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

function first(value: string | string[] | undefined): string | null {
  const text = Array.isArray(value) ? value[0] : value;
  return text && text.trim() !== "" ? text : null;
}

export default async function LockPage({ searchParams }: Props) {
  const params = await searchParams;
  const cluster = first(params.cluster);
  const key = first(params.key);
  const pattern = key === null ? first(params.pattern) : null;
  if (!cluster || (key === null && pattern === null)) return <LocksIndex />;
  const ref: LockPageRef = { cluster, key, pattern };
  const lockRef: LockRef = key !== null ? { cluster, key } : { cluster, pattern: pattern! };
  const heading = (
    <>
      <h1>{key ?? pattern}</h1>
      <p className="page-lead">
        {key !== null ? "A lock" : "Every lock of this pattern"} on cluster <strong>{cluster}</strong>: who holds it, since when, who held it before, and how
        each hold ended.
      </p>
    </>
  );
  const config = getConfig();
  // An unknown cluster or lock is a 404, not an empty page answered 200.
  if (!config.clusters.some((c) => c.name === cluster)) notFound();

  const db = getDb();
  const nowMs = Date.now();
  const result = await runQuery(async () => {
    // Without a range in the URL, the page opens on one that fits what Baton knows of the lock.
    const selection = hasRangeParam(params) ? readRangeSelection(params) : fitRangeToData(await getFirstSeen(db, { kind: "lock", ...ref }), nowMs);
    const range = resolveRange(selection, nowMs);
    try {
      const [timeline, changes] = await Promise.all([
        getLockTimeline(db, { ...lockRef, ...range, thresholds: config.board, nowMs }),
        listLockChanges(db, { ...ref, ...range, limit: CHANGE_PAGE_SIZE }),
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
        <UnavailableNotice what="This lock" reason={result.reason} />
      </>
    );
  }
  if (!result.data.isFound) notFound();
  const { selection, range } = result.data;
  const isLive = isLiveRange(selection);
  const queryClient = new QueryClient();
  queryClient.setQueryData(lockTimelineQuery(ref, range, { isLive, allDeployments: false }).queryKey, result.data.timeline);
  queryClient.setQueryData(lockChangesPageQuery(ref, range, { isLive, cursor: null }).queryKey, result.data.changes);
  return (
    <>
      {heading}
      <HydrationBoundary state={dehydrate(queryClient)}>
        <LockView lockRef={ref} initialSelection={selection} initialRange={range} />
      </HydrationBoundary>
    </>
  );
}

/** `/locks` without a lock named: every lock Baton observes, as the board's Locks section lists them. */
async function LocksIndex() {
  const config = getConfig();
  const heading = (
    <>
      <h1>Locks</h1>
      <p className="page-lead">Every lock Baton observes: who holds it, since when, the TTL left, who waits, and is it healthy. Open one for its history.</p>
    </>
  );
  const locks = await runQuery(() => listLocks(getDb(), { clusterNames: config.clusters.map((c) => c.name), thresholds: config.board, query: ALL_LOCKS }));
  if (!locks.isAvailable) {
    return (
      <>
        {heading}
        <UnavailableNotice what="Locks" reason={locks.reason} />
      </>
    );
  }
  return (
    <>
      {heading}
      <LocksIndexView initialLocks={locks.data} />
    </>
  );
}
