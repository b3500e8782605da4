import Link from "next/link";

import { formatCount } from "@/lib/violations/format";
import { INSIDE_COLOR, OUTSIDE_COLOR } from "@/lib/violations/violation-colors";

export type TopListRow = { id: string; name: string; detail?: string; violations: number; outside: number; inside: number; href?: string };

/** A ranked list with each row's split: outside rollouts (red: every other cause) and rollout (amber). */
export function TopList({ title, rows, emptyText, testId }: { title: string; rows: readonly TopListRow[]; emptyText: string; testId: string }) {
  const max = rows.reduce((m, r) => Math.max(m, r.violations), 1);
  return (
    <section className="panel vio-top-list" aria-label={title} data-testid={testId}>
      <h2>{title}</h2>
      {rows.length === 0 ? (
        <p className="muted">{emptyText}</p>
      ) : (
        <table className="data vio-compact">
          <thead>
            <tr>
              <th scope="col">Name</th>
              {/* "Total", not "Violations": at 1280 px two lists share a row and the longer word ran into the next header. */}
              <th scope="col" className="vio-num" title="Every violation of this row">
                Total
              </th>
              <th scope="col" className="vio-num" title="Violations of every cause but rollout">
                Outside rollouts
              </th>
              <th scope="col" className="vio-num" title="Violations inside a deployment window of their service">
                Rollout
              </th>
              <th scope="col" aria-label="Split" />
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>
                <th scope="row" className="vio-name">
                  {row.href ? <Link href={row.href}>{row.name}</Link> : row.name}
                  {row.detail ? <div className="muted vio-small">{row.detail}</div> : null}
                </th>
                <td className="vio-num">{formatCount(row.violations)}</td>
                <td className="vio-num vio-outside">{formatCount(row.outside)}</td>
                <td className="vio-num vio-inside">{formatCount(row.inside)}</td>
                <td className="vio-split" aria-hidden="true">
                  <span className="vio-split-bar" style={{ width: `${(row.outside / max) * 100}%`, background: OUTSIDE_COLOR }} />
                  <span className="vio-split-bar" style={{ width: `${(row.inside / max) * 100}%`, background: INSIDE_COLOR }} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
