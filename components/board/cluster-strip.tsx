import { AgoTime } from "@/components/board/time-text";
import type { ClusterStatus } from "@/lib/board/board-types";

/** Each cluster in one line: polled when, or silent since when (the worker may be down). */
export function ClusterStrip({ clusters, nowMs, unit = "subscription partitions" }: { clusters: ClusterStatus[]; nowMs: number; unit?: string }) {
  return (
    <ul className="cluster-strip" aria-label={unit === "locks" ? "Lock clusters" : "Clusters"}>
      {clusters.map((cluster) => (
        <li key={cluster.name} data-silent={cluster.isSilent ? "true" : undefined}>
          <strong>{cluster.name}</strong>{" "}
          {cluster.lastPollAt === null ? (
            <span className="muted">never polled: is Baton&apos;s worker running?</span>
          ) : cluster.isSilent ? (
            <span className="silent">
              no poll since <AgoTime iso={cluster.lastPollAt} nowMs={nowMs} />: is Baton&apos;s worker running?
            </span>
          ) : cluster.lastPollErrorCount ? (
            <span className="silent" title={cluster.lastPollError ?? undefined}>
              polled <AgoTime iso={cluster.lastPollAt} nowMs={nowMs} /> with {cluster.lastPollErrorCount}{" "}
              {cluster.lastPollErrorCount === 1 ? "error" : "errors"}
              {cluster.lastPollError ? `: ${cluster.lastPollError}` : ""}
            </span>
          ) : (
            <span className="muted">
              polled <AgoTime iso={cluster.lastPollAt} nowMs={nowMs} />, {cluster.resourceCount} {unit}
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}
