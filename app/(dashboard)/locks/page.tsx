import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";

import { LockView } from "@/app/(dashboard)/locks/lock-view";
import { EmptyState } from "@/components/ui/empty-state";
import { UnavailableNotice } from "@/components/ui/unavailable-notice";
import { CHANGE_PAGE_SIZE, lockChangesPageQuery, lockTimelineQuery, type LockPageRef } from "@/lib/client/read-api-queries";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { ApiError } from "@/lib/http/api-error";
import { getFirstSeen } from "@/lib/queries/get-first-seen";
import { getLockTimeline, type LockRef } from "@/lib/queries/get-lock-timeline";
import { listLockChanges } from "@/lib/queries/list-lock-changes";
import { runQuery } from "@/lib/queries/query-result";
import { fitRangeToFirstSeen, hasRangeParam, isLiveRange, readRangeSelection, resolveRange } from "@/lib/timeline/time-range";

export const dynamic = "force-dynamic";
export const metadata = { title: "Lock" };

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
  if (!cluster || (key === null && pattern === null)) {
    return (
      <>
        <h1>Lock</h1>
        <EmptyState title="No lock chosen">
          <p>Open a lock from the Locks section of the board: its page shows who held it over time, how each hold ended, and every change.</p>
        </EmptyState>
      </>
    );
  }
  const ref: LockPageRef = { cluster, key, pattern };
  const lockRef: LockRef = key !== null ? { cluster, key } : { cluster, pattern: pattern! };
  const heading = (
    <>
      <h1>{key ?? pattern}</h1>
      <p className="page-lead">
        {key !== null ? "A lock" : "Every lock of this pattern"} on cluster <strong>{cluster}</strong>: who holds it, since when, who held it before, and how each hold ended.
      </p>
    </>
  );
  const config = getConfig();
  if (!config.clusters.some((c) => c.name === cluster)) {
    return (
      <>
        {heading}
        <EmptyState title={`No configured cluster is named ${cluster}`}>
          <p>Configured: {config.clusters.map((c) => c.name).join(", ") || "none"}.</p>
        </EmptyState>
      </>
    );
  }

  const db = getDb();
  const nowMs = Date.now();
  const result = await runQuery(async () => {
    // Without a range in the URL, the page opens on one that fits what Baton knows of the lock.
    const selection = hasRangeParam(params) ? readRangeSelection(params) : fitRangeToFirstSeen(await getFirstSeen(db, { kind: "lock", ...ref }), nowMs);
    const range = resolveRange(selection, nowMs);
    try {
      const [timeline, changes] = await Promise.all([
        getLockTimeline(db, { ...lockRef, ...range, thresholds: config.board, nowMs }),
        listLockChanges(db, { ...ref, ...range, limit: CHANGE_PAGE_SIZE }),
      ]);
      return { isFound: true as const, selection, range, timeline, changes };
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return { isFound: false as const, message: error.message };
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
  if (!result.data.isFound) {
    return (
      <>
        {heading}
        <EmptyState title="Not seen">
          <p>{result.data.message}</p>
        </EmptyState>
      </>
    );
  }
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
