import { formatInstant } from "@/lib/violations/format";
import type { DeploymentBand } from "@/lib/violations/violation-types";

/** Deployments near the key's events, with their classification windows. */
export function DeploymentBandTable({ deployments, timeZone }: { deployments: readonly DeploymentBand[]; timeZone: string }) {
  return (
    <table className="data vio-compact" data-testid="drilldown-deployments">
      <caption className="vio-sr-only">Deployments near the key&apos;s events</caption>
      <thead>
        <tr>
          <th scope="col">Service</th>
          <th scope="col">Version</th>
          <th scope="col">Environment</th>
          <th scope="col">Started</th>
          <th scope="col">Finished</th>
          <th scope="col">Counts as inside until</th>
        </tr>
      </thead>
      <tbody>
        {deployments.map((d) => (
          <tr key={d.id}>
            <th scope="row">{d.link ? <a href={d.link}>{d.service}</a> : d.service}</th>
            <td className="mono">{d.version}</td>
            <td>{d.environment}</td>
            <td className="mono vio-nowrap">{formatInstant(d.startedAt, timeZone)}</td>
            <td className="mono vio-nowrap">{d.finishedAt ? formatInstant(d.finishedAt, timeZone) : "in progress"}</td>
            <td className="mono vio-nowrap">{formatInstant(d.windowEnd, timeZone)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
