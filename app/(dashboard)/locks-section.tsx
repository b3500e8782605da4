"use client";

import { useEffect, useMemo, useState } from "react";

import { ClusterStrip } from "@/components/board/cluster-strip";
import { LocksTable } from "@/components/locks/locks-table";
import { filterLocks } from "@/lib/board/lock-filters";
import type { LocksBoard } from "@/lib/board/lock-types";
import { consumerHref, lockHref } from "@/lib/board/links";

/** TTLs count down by the second. */
const TTL_TICK_MS = 1_000;

function useSecondTick(fallbackMs: number): number {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), TTL_TICK_MS);
    return () => clearInterval(timer);
  }, []);
  return now ?? fallbackMs;
}

/** The board's Locks section: the lock clusters' status and every lock the filters let through. */
export function LocksSection({
  board,
  filters,
  error,
}: {
  board: LocksBoard | undefined;
  filters: { cluster: string | null; kind: string | null; q: string };
  error: string | null;
}) {
  const nowMs = useSecondTick(board ? Date.parse(board.generatedAt) : 0);
  const locks = useMemo(() => (board ? filterLocks(board.locks, filters) : []), [board, filters]);
  return (
    <section className="panel locks-section" aria-label="Locks">
      <h2>
        Locks{" "}
        {board && board.clusters.length > 0 ? (
          <span className="muted small">
            {locks.length === board.locks.length ? `${board.locks.length} locks` : `${locks.length} of ${board.locks.length} locks`}
          </span>
        ) : null}
      </h2>
      {!board ? (
        <p className="muted">{error ? `Locks unavailable: ${error}` : "Loading the locks…"}</p>
      ) : board.clusters.length === 0 ? (
        <p className="muted">
          No lock source is configured: add a Redis cluster to <code>BATON_CLUSTERS</code>, e.g.{" "}
          <code>{'{"kind":"redis","name":"redis-main","url":"redis://127.0.0.1:6379","patterns":[{"match":"lock:*"}]}'}</code>, and restart (the README&apos;s
          Configuration section has every setting).
        </p>
      ) : (
        <>
          <ClusterStrip clusters={board.clusters} nowMs={nowMs} unit="locks" />
          {error ? <p className="outdated">Not refreshed: {error}. What is shown may no longer be true.</p> : null}
          {board.locks.length === 0 ? (
            <p className="muted">No lock observed yet: locks matching the configured patterns appear after the worker&apos;s first successful poll.</p>
          ) : locks.length === 0 ? (
            <p className="muted">No lock matches these filters.</p>
          ) : (
            <LocksTable locks={locks} nowMs={nowMs} lockHref={lockHref} consumerHref={consumerHref} />
          )}
        </>
      )}
    </section>
  );
}
