"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";

import { ClockTime, TenureTime } from "@/components/board/time-text";
import { HolderLocksTable } from "@/components/locks/holder-locks-table";
import { ChangeList } from "@/components/timeline/change-list";
import { OutdatedNotice } from "@/components/ui/outdated-notice";
import { subscriptionHref } from "@/lib/board/links";
import { consumerQuery } from "@/lib/consumers/consumer-queries";
import type { ConsumerPosition } from "@/lib/consumers/get-consumer";

function useTick(ms: number): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

function Role({ position }: { position: ConsumerPosition }) {
  if (position.staleSince !== null) return <span className="last-known">last known: {position.isHolder ? "holder" : "standby"} (stale)</span>;
  if (position.subscriptionType === "Key_Shared") return <span>shares the hash ranges</span>;
  return position.isHolder ? <strong>holds it</strong> : <span className="muted">stands by{position.holder ? ` (held by ${position.holder})` : ""}</span>;
}

export function ConsumerView({ name, cluster, span }: { name: string; cluster: string | null; span: number }) {
  const query = useQuery(consumerQuery(name, { cluster, span }));
  const tick = useTick(5_000);
  const report = query.data;
  if (!report) {
    return query.isError ? (
      <section className="panel empty-state unavailable" role="alert">
        <h2>Consumer unavailable</h2>
        <p>{query.error.message}</p>
      </section>
    ) : (
      <p className="muted">Loading…</p>
    );
  }
  const nowMs = tick ?? Date.parse(report.positions[0]?.lastObservedAt ?? new Date(0).toISOString());
  const held = report.positions.filter((p) => p.isHolder);
  return (
    <>
      {query.isError ? <OutdatedNotice what="the consumer" reason={query.error.message} readAt={query.dataUpdatedAt} /> : null}
      <section className="panel" aria-label="Positions">
        <h2>
          Now: holds {held.length} of {report.positions.length} subscription partitions it is connected to
        </h2>
        {report.positions.length === 0 ? (
          <p className="muted">Not connected to any watched subscription now.</p>
        ) : (
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Subscription</th>
                <th scope="col">Partition</th>
                <th scope="col">Type</th>
                <th scope="col">Role</th>
                <th scope="col">Tenure</th>
                <th scope="col">Connected since</th>
                <th scope="col">Address</th>
              </tr>
            </thead>
            <tbody>
              {report.positions.map((p) => (
                <tr key={`${p.cluster}|${p.topic}|${p.subscription}|${p.partition}`}>
                  <td>
                    <Link prefetch={false} href={subscriptionHref(p)}>
                      {p.subscription}
                    </Link>
                    <div className="muted small">
                      {p.cluster} · {p.topic.replace(/^persistent:\/\//, "")}
                    </div>
                  </td>
                  <td>{p.partition < 0 ? "—" : p.partition}</td>
                  <td>{p.subscriptionType ?? "?"}</td>
                  <td>
                    <Role position={p} />
                  </td>
                  <td>{p.isHolder && p.staleSince === null && p.holderSince ? <TenureTime iso={p.holderSince} nowMs={nowMs} /> : "—"}</td>
                  <td>{p.connectedSince ? <ClockTime iso={new Date(p.connectedSince).toISOString()} nowMs={nowMs} /> : "?"}</td>
                  <td className="mono">{p.address ?? "?"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {report.locks.length > 0 ? (
        <section className="panel" aria-label="Locks">
          <h2>
            Locks: holds {report.locks.filter((l) => l.role === "holder").length}, waits for {report.locks.filter((l) => l.role === "waiter").length}
          </h2>
          <HolderLocksTable locks={report.locks} nowMs={nowMs} />
        </section>
      ) : null}
      <section className="panel" aria-label="History">
        <h2>
          History{" "}
          <span className="muted small">
            {report.historyTotal} changes to or from {name} in the last 7 days, newest first
          </span>
        </h2>
        {report.history.length === 0 ? (
          <p className="muted">No hold gained or lost in the last 7 days.</p>
        ) : (
          <ChangeList changes={report.history} showSubscription caption={`Changes to or from ${name}`} />
        )}
        {report.nextCursor ? <p className="muted small">Showing the newest {report.history.length}; the read API pages through the rest.</p> : null}
      </section>
    </>
  );
}
