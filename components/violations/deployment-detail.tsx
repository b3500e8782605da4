"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";

import { deploymentViolationsQuery } from "@/lib/violations/client/violation-queries";
import { formatCount, formatInstant } from "@/lib/violations/format";
import { drilldownHref } from "@/lib/violations/view-params";

/** One deployment's violations: its top keys and workers, and the latest violations with links. Fetched when opened. */
export function DeploymentDetail({ id, timeZone }: { id: string; timeZone: string }) {
  const query = useQuery(deploymentViolationsQuery(id));
  if (query.isError) return <p className="vio-error">The violations of this deployment could not be read: {query.error.message}</p>;
  const detail = query.data;
  if (!detail) return <p className="muted">Loading…</p>;
  if (detail.total === 0) return <p className="muted">No violation of {detail.deployment.service} during this deployment (raw events kept by retention).</p>;
  return (
    <div className="vio-deployment-detail" data-testid="deployment-detail">
      <div className="vio-detail-lists">
        <div>
          <h4>Keys</h4>
          <ul>
            {detail.keys.map((k) => (
              <li key={k.name}>
                <Link href={drilldownHref({ key: k.name, range: { preset: "custom", from: detail.deployment.startedAt, to: detail.deployment.windowEnd } })}>
                  {k.name}
                </Link>{" "}
                <span className="muted">{formatCount(k.violations)}</span>
              </li>
            ))}
          </ul>
        </div>
        <div>
          <h4>Workers</h4>
          <ul>
            {detail.workers.map((w) => (
              <li key={w.name}>
                {w.name} <span className="muted">{formatCount(w.violations)}</span>
              </li>
            ))}
          </ul>
        </div>
      </div>
      <table className="data vio-compact">
        <caption className="vio-sr-only">Latest violations during this deployment</caption>
        <thead>
          <tr>
            <th scope="col">Observed</th>
            <th scope="col">Key</th>
            <th scope="col">Worker</th>
            <th scope="col" className="vio-num">
              Counter
            </th>
            <th scope="col">Trace</th>
          </tr>
        </thead>
        <tbody>
          {detail.events.map((e) => (
            <tr key={e.eventId}>
              <td className="mono vio-nowrap">
                <Link href={drilldownHref({ eventId: e.eventId, observedAt: e.observedAt })}>{formatInstant(e.observedAt, timeZone)}</Link>
              </td>
              <td>{e.key}</td>
              <td>{e.worker}</td>
              <td className="vio-num">{e.counter}</td>
              <td>
                {e.traceUrl ? (
                  <a href={e.traceUrl} target="_blank" rel="noreferrer" className="mono">
                    {e.traceId}
                  </a>
                ) : (
                  <span className="mono muted">{e.traceId ?? "—"}</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {detail.total > detail.events.length ? (
        <p className="muted vio-small">
          The latest {detail.events.length} of {formatCount(detail.total)} violations.
        </p>
      ) : null}
    </div>
  );
}
