import { ExactTime } from "@/components/board/time-text";
import type { PollerStatus } from "@/lib/health/health-report";

function formatMs(ms: number | null): string {
  if (ms === null) return "?";
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Which Baton process polls the cluster (lease holder, epoch) and its last cycle; `unit`: what its cycles read ("locks"). */
export function PollerSummary({ poller, unit }: { poller: PollerStatus | null; unit: string }) {
  if (!poller || poller.pollerId === null) return <span className="muted">no poller yet</span>;
  return (
    <div data-testid="poller-summary">
      <div className="mono">
        {poller.pollerId}, epoch {poller.epoch}
      </div>
      {poller.acquiredAt ? (
        <div className="muted small">
          since <ExactTime iso={poller.acquiredAt} />
        </div>
      ) : null}
      <div className="muted">
        {poller.lastPollAt ? (
          <>
            last cycle <ExactTime iso={poller.lastPollAt} />, {formatMs(poller.lastDurationMs)} (cycle {formatMs(poller.lastCycleMs)}),{" "}
            {poller.resourceCount ?? 0} {unit}
          </>
        ) : (
          "no cycle yet"
        )}
      </div>
    </div>
  );
}
