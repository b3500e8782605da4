"use client";

import { useQuery } from "@tanstack/react-query";

import { AlertsTable } from "@/components/alerts/alerts-table";
import { alertsQuery } from "@/lib/alerts/alert-queries";

export function AlertsView() {
  const query = useQuery(alertsQuery());
  const list = query.data;
  if (!list) {
    return query.isError ? (
      <section className="panel empty-state unavailable" role="alert">
        <h2>Alerts unavailable</h2>
        <p>{query.error.message}</p>
      </section>
    ) : (
      <p className="muted">Loading alerts…</p>
    );
  }
  const open = list.alerts.filter((a) => a.state !== "resolved");
  const resolved = list.alerts.filter((a) => a.state === "resolved");
  return (
    <>
      <section className="panel" aria-labelledby="alerts-open">
        <h2 id="alerts-open">Firing and pending</h2>
        {open.length === 0 ? <p className="muted">Nothing fires: every rule holds.</p> : <AlertsTable alerts={open} label="Firing and pending alerts" />}
      </section>
      <section className="panel" aria-labelledby="alerts-recent">
        <h2 id="alerts-recent">Recently resolved</h2>
        {resolved.length === 0 ? <p className="muted">No alert has resolved yet.</p> : <AlertsTable alerts={resolved} label="Resolved alerts" />}
      </section>
    </>
  );
}
