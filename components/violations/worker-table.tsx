import type { WorkerActivity, WorkerOverlap } from "@/lib/violations/drilldown-types";
import { formatCount, formatInstant } from "@/lib/violations/format";

/** The workers that entered the key, and who entered while whom was inside. */
export function WorkerTable({ workers, overlaps, timeZone }: { workers: readonly WorkerActivity[]; overlaps: readonly WorkerOverlap[]; timeZone: string }) {
  return (
    <>
      <table className="data vio-compact" data-testid="worker-table">
        <caption className="vio-sr-only">Workers involved</caption>
        <thead>
          <tr>
            <th scope="col">Worker</th>
            <th scope="col">Service</th>
            <th scope="col" className="vio-num">
              Entries
            </th>
            <th scope="col" className="vio-num">
              Violations
            </th>
            <th scope="col">First</th>
            <th scope="col">Last</th>
          </tr>
        </thead>
        <tbody>
          {workers.map((w) => (
            <tr key={w.worker}>
              <th scope="row">{w.worker}</th>
              <td>{w.services.join(", ")}</td>
              <td className="vio-num">{formatCount(w.events)}</td>
              <td className="vio-num">{formatCount(w.violations)}</td>
              <td className="mono vio-nowrap">{formatInstant(w.firstAt, timeZone)}</td>
              <td className="mono vio-nowrap">{formatInstant(w.lastAt, timeZone)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {overlaps.length > 0 ? (
        <ul className="vio-overlaps" data-testid="worker-overlaps" aria-label="Overlaps">
          {overlaps.map((o) => (
            <li key={`${o.entered}|${o.inside}`}>
              <strong>{o.entered}</strong> entered while <strong>{o.inside}</strong> was inside: {o.count === 1 ? "once" : `${formatCount(o.count)} times`}
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}
