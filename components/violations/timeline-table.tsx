import { formatCount, formatMinute } from "@/lib/violations/format";
import type { TimelineBucket } from "@/lib/violations/violation-types";

/** The chart's numbers as a table (buckets with reports), for screen readers and for copying. */
export function TimelineTable({ buckets, timeZone }: { buckets: readonly TimelineBucket[]; timeZone: string }) {
  const reported = buckets.filter((b) => b.total !== null);
  const unobserved = buckets.length - reported.length;
  return (
    <details className="vio-chart-table">
      <summary>
        The chart as a table ({reported.length} buckets with reports{unobserved > 0 ? `, ${unobserved} without any` : ""})
      </summary>
      <table className="data vio-compact">
        <caption className="vio-sr-only">Violations per bucket</caption>
        <thead>
          <tr>
            <th scope="col">From</th>
            <th scope="col">To</th>
            <th scope="col" className="vio-num">
              Outside
            </th>
            <th scope="col" className="vio-num">
              Inside
            </th>
          </tr>
        </thead>
        <tbody>
          {reported.map((b) => (
            <tr key={b.start}>
              <td className="vio-nowrap">{formatMinute(b.start, timeZone)}</td>
              <td className="vio-nowrap">{formatMinute(b.end, timeZone)}</td>
              <td className="vio-num">{formatCount(b.total!.outside)}</td>
              <td className="vio-num">{formatCount(b.total!.inside)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
