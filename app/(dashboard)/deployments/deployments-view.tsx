"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Fragment, useEffect, useMemo, useState } from "react";

import { RangeControl } from "@/components/range-control";
import { ChoiceSelect } from "@/components/ui/choice-select";
import { DeploymentDetail } from "@/components/violations/deployment-detail";
import { isLiveRange, resolveRange } from "@/lib/timeline/time-range";
import { deploymentCoincidencesQuery } from "@/lib/violations/client/violation-queries";
import { useReaderTimeZone } from "@/lib/violations/client/use-reader-time-zone";
import { formatCount, formatDuration, formatInstant } from "@/lib/violations/format";
import { violationsHref, writeDeploymentsView, type DeploymentsViewState } from "@/lib/violations/view-params";

export function DeploymentsView({
  initialState,
  initialRange,
  serverTimeZone,
}: {
  initialState: DeploymentsViewState;
  initialRange: { fromMs: number; toMs: number };
  serverTimeZone: string;
}) {
  const [state, setState] = useState(initialState);
  const [openId, setOpenId] = useState<string | null>(null);
  const timeZone = useReaderTimeZone(serverTimeZone);
  const range = useMemo(
    () => (state.range === initialState.range ? initialRange : resolveRange(state.range, Date.now())),
    [state.range, initialState.range, initialRange],
  );
  const queryRange = useMemo(() => ({ ...range, isLive: isLiveRange(state.range) }), [range, state.range]);
  const query = useQuery(deploymentCoincidencesQuery(queryRange, { service: state.service, environment: state.environment }));

  useEffect(() => {
    const params = writeDeploymentsView(state).toString();
    if (window.location.search.replace(/^\?/, "") !== params) window.history.replaceState(null, "", `?${params}`);
  }, [state]);

  const list = query.data;
  if (!list) {
    return query.isError ? (
      <section className="panel empty-state unavailable" role="alert">
        <h2>Deployments unavailable</h2>
        <p>{query.error.message}</p>
      </section>
    ) : (
      <p className="muted">Loading deployments…</p>
    );
  }
  const withViolations = list.deployments.filter((d) => d.violations > 0).length;
  return (
    <section className="panel" aria-label="Deployments">
      <div className="vio-actions">
        <RangeControl selection={state.range} range={range} timeZone={timeZone} onChange={(selection) => setState((s) => ({ ...s, range: selection }))} />
      </div>
      <div className="vio-filters">
        <ChoiceSelect
          className="vio-field"
          label="Service"
          value={state.service}
          choices={list.services}
          onChange={(service) => setState((s) => ({ ...s, service }))}
        />
        <ChoiceSelect
          className="vio-field"
          label="Environment"
          value={state.environment}
          choices={list.environments}
          onChange={(environment) => setState((s) => ({ ...s, environment }))}
        />
        <p className="vio-count muted" data-testid="deployment-count">
          {formatCount(list.total)} deployments started in the range
          {list.total > list.deployments.length ? ` (the latest ${list.deployments.length} shown)` : ""}; {formatCount(withViolations)} coincided with
          violations.
        </p>
      </div>
      {list.deployments.length === 0 ? (
        <p className="muted">No deployment started in this range{state.service || state.environment ? " with these filters" : ""}.</p>
      ) : (
        <table className="data" data-testid="deployments-table">
          <thead>
            <tr>
              <th scope="col">Service</th>
              <th scope="col">Version</th>
              <th scope="col">Environment</th>
              <th scope="col">Started</th>
              <th scope="col">Finished</th>
              <th scope="col" className="vio-num">
                Violations during it
              </th>
            </tr>
          </thead>
          <tbody>
            {list.deployments.map((d) => {
              const isOpen = openId === d.id;
              const startedMs = Date.parse(d.startedAt);
              return (
                <Fragment key={d.id}>
                  <tr data-testid="deployment-row" data-service={d.service} data-version={d.version}>
                    <th scope="row">
                      {d.link ? <a href={d.link}>{d.service}</a> : d.service}
                      {d.description ? <div className="muted vio-small">{d.description}</div> : null}
                    </th>
                    <td className="mono">{d.version}</td>
                    <td>{d.environment}</td>
                    <td className="mono vio-nowrap">{formatInstant(d.startedAt, timeZone)}</td>
                    <td className="mono vio-nowrap">
                      {d.finishedAt === null ? (
                        <strong>in progress</strong>
                      ) : (
                        `${formatInstant(d.finishedAt, timeZone)} (${formatDuration(Date.parse(d.finishedAt) - startedMs)})`
                      )}
                    </td>
                    <td className="vio-num">
                      {d.violations === 0 ? (
                        <span className="muted">0</span>
                      ) : (
                        <>
                          <Link
                            href={violationsHref({ service: d.service, fromMs: startedMs - 30 * 60_000, toMs: Date.parse(d.windowEnd) + 30 * 60_000 })}
                            className="vio-outside"
                          >
                            {formatCount(d.violations)}
                          </Link>{" "}
                          <button type="button" aria-expanded={isOpen} onClick={() => setOpenId(isOpen ? null : d.id)}>
                            {isOpen ? "Hide" : "Show"}
                            <span className="vio-sr-only">
                              {" "}
                              the violations of {d.service} {d.version}
                            </span>
                          </button>
                        </>
                      )}
                    </td>
                  </tr>
                  {isOpen ? (
                    <tr>
                      <td colSpan={6}>
                        <DeploymentDetail id={d.id} timeZone={timeZone} />
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      )}
      <p className="vio-note">
        A violation coincides with a deployment when it is of the deployment&apos;s service and falls from its start to its finish plus{" "}
        {formatDuration(list.graceMs)} of grace (in whole minutes, as the violations chart counts).
      </p>
    </section>
  );
}
