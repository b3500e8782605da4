"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from "react";

import { LocksSection } from "@/app/(dashboard)/locks-section";
import { BoardFiltersBar } from "@/components/board/board-filters-bar";
import { ClusterStrip } from "@/components/board/cluster-strip";
import { LeadersTable } from "@/components/board/leaders-table";
import { EmptyState } from "@/components/ui/empty-state";
import { OutdatedNotice } from "@/components/ui/outdated-notice";
import { filterGroups, listFacets, NO_FILTERS, writeBoardFilters, type BoardFilters } from "@/lib/board/board-filters";
import { findChangedLeaders, flattenBoard, isExpandable } from "@/lib/board/board-lines";
import type { LeadersBoard, SubscriptionGroup } from "@/lib/board/board-types";
import { describeBoardKind, listBoardKinds, showsLocks, showsSubscriptions } from "@/lib/board/lock-filters";
import type { LocksBoard } from "@/lib/board/lock-types";
import { consumerHref, subscriptionHref } from "@/lib/board/links";
import { locksQuery } from "@/lib/locks/lock-queries";
import { leadersQuery } from "@/lib/subscriptions/subscription-queries";

/** How long a changed leader stays highlighted. */
const HIGHLIGHT_MS = 6_000;
const TICK_MS = 5_000;

/** The time tenures are counted to: the server's at first (so hydration matches), then the browser's, ticking. */
function useNow(serverNow: string | undefined): number {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, []);
  return now ?? (serverNow ? Date.parse(serverNow) : 0);
}

/** Keys whose leader changed in one of the last refreshes, for HIGHLIGHT_MS. */
function useLeaderHighlights(groups: SubscriptionGroup[] | undefined): ReadonlySet<string> {
  const previous = useRef<SubscriptionGroup[] | undefined>(undefined);
  const [until, setUntil] = useState<ReadonlyMap<string, number>>(new Map());
  useEffect(() => {
    if (!groups || groups === previous.current) return;
    const changed = findChangedLeaders(previous.current, groups);
    previous.current = groups;
    if (changed.size === 0) return;
    const expiry = Date.now() + HIGHLIGHT_MS;
    setUntil((current) => new Map([...current, ...[...changed].map((key) => [key, expiry] as const)]));
  }, [groups]);
  useEffect(() => {
    if (until.size === 0) return;
    const next = Math.min(...until.values());
    const timer = setTimeout(
      () => setUntil((current) => new Map([...current].filter(([, expiry]) => expiry > Date.now()))),
      Math.max(0, next - Date.now()) + 20,
    );
    return () => clearTimeout(timer);
  }, [until]);
  return useMemo(() => new Set(until.keys()), [until]);
}

export function LeadersView({
  initialFilters,
  initialBoardJson,
  initialLocks,
}: {
  initialFilters: BoardFilters;
  initialBoardJson: string;
  initialLocks: LocksBoard;
}) {
  const router = useRouter();
  const [filters, setFilters] = useState<BoardFilters>(initialFilters);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  const [initialBoard] = useState(() => JSON.parse(initialBoardJson) as LeadersBoard);
  const q = useDeferredValue(filters.q);
  const isInitialKey = filters.includeGone === initialFilters.includeGone;
  const query = useQuery({
    ...leadersQuery({ includeGone: filters.includeGone }),
    initialData: isInitialKey ? initialBoard : undefined,
    initialDataUpdatedAt: isInitialKey ? Date.parse(initialBoard.generatedAt) : undefined,
  });
  const locks = useQuery({
    ...locksQuery({ includeGone: filters.includeGone }),
    initialData: isInitialKey ? initialLocks : undefined,
    initialDataUpdatedAt: isInitialKey ? Date.parse(initialLocks.generatedAt) : undefined,
  });
  const board = query.data;
  const nowMs = useNow(board?.generatedAt);
  const highlighted = useLeaderHighlights(board?.subscriptions);

  // The URL holds the filters (a pasted link opens the same view); replacing it in place does
  // not ask the server for the page again.
  useEffect(() => {
    const search = writeBoardFilters(filters);
    if (window.location.search.replace(/^\?/, "") !== search) window.history.replaceState(null, "", search ? `?${search}` : window.location.pathname);
  }, [filters]);

  const { cluster, tenant, namespace, kind } = filters;
  const lockFilters = useMemo(() => ({ cluster, kind, q }), [cluster, kind, q]);
  const lockClusters = useMemo(() => new Set(locks.data?.clusters.map((c) => c.name) ?? []), [locks.data]);
  const kinds = useMemo(() => listBoardKinds(locks.data?.clusters.map((c) => c.sourceKind) ?? []), [locks.data]);
  const groups = useMemo(
    () => (board ? filterGroups(board.subscriptions, { ...NO_FILTERS, cluster, tenant, namespace, q }) : []),
    [board, cluster, tenant, namespace, q],
  );
  const facets = useMemo(() => (board ? listFacets(board.subscriptions, { cluster, tenant }) : { tenants: [], namespaces: [] }), [board, cluster, tenant]);
  const lines = useMemo(() => flattenBoard(groups, expanded), [groups, expanded]);

  const onChange = useCallback((patch: Partial<BoardFilters>) => setFilters((current) => ({ ...current, ...patch })), []);
  const onToggle = useCallback((key: string) => {
    setExpanded((current) => {
      const next = new Set(current);
      if (!next.delete(key)) next.add(key);
      return next;
    });
  }, []);
  const onOpen = useCallback((group: SubscriptionGroup) => router.push(subscriptionHref(group)), [router]);

  if (!board) {
    return query.isError ? (
      <section className="panel empty-state unavailable" role="alert">
        <h2>Leaders unavailable</h2>
        <p>{query.error.message}</p>
      </section>
    ) : (
      <p className="muted">Loading the leaders…</p>
    );
  }

  const isOutdated = query.isError;
  const isShowingSubscriptions = showsSubscriptions(kind);
  const locksSection = showsLocks(kind) ? <LocksSection board={locks.data} filters={lockFilters} error={locks.isError ? locks.error.message : null} /> : null;
  return (
    <>
      <ClusterStrip clusters={board.clusters.filter((c) => !lockClusters.has(c.name))} nowMs={nowMs} />
      {isOutdated ? <OutdatedNotice what="the board" reason={query.error.message} readAt={Date.parse(board.generatedAt)} /> : null}
      <BoardFiltersBar
        filters={filters}
        clusters={board.clusters.map((c) => c.name)}
        kinds={kinds}
        describeKind={describeBoardKind}
        tenants={facets.tenants}
        namespaces={facets.namespaces}
        shown={groups.length}
        total={board.subscriptions.length}
        onChange={onChange}
        onExpandAll={() => setExpanded(new Set(groups.filter(isExpandable).map((g) => g.key)))}
        onCollapseAll={() => setExpanded(new Set())}
      />
      {!isShowingSubscriptions ? null : board.subscriptions.length === 0 ? (
        <EmptyState title="No subscription observed yet">
          <p>
            Failover, Exclusive and Key_Shared subscriptions of the configured clusters appear here after the worker&apos;s first successful poll
            {filters.includeGone ? "" : " (subscriptions that no longer exist are hidden: tick “Show gone”)"}.
          </p>
        </EmptyState>
      ) : groups.length === 0 ? (
        <EmptyState title="No subscription matches these filters">
          <p>
            <button type="button" onClick={() => setFilters({ ...NO_FILTERS, includeGone: filters.includeGone })}>
              Clear the filters
            </button>
          </p>
        </EmptyState>
      ) : (
        <LeadersTable
          lines={lines}
          nowMs={nowMs}
          highlighted={highlighted}
          isOutdated={isOutdated}
          onToggle={onToggle}
          onOpen={onOpen}
          subscriptionHref={subscriptionHref}
          consumerHref={consumerHref}
        />
      )}
      {locksSection}
    </>
  );
}
