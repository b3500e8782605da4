import type { BoardThresholds, ClusterSnapshot, ResourceSnapshot } from "@/lib/board/board-types";
import type { RuleContext } from "@/lib/board/health-rules";

export const NOW = Date.parse("2026-11-22T12:00:00.000Z");
export const THRESHOLDS: BoardThresholds = { flapChanges: 4, flapWindowMs: 10 * 60_000, stuckSamples: 3, recoveredAfterMs: null };

export const ago = (ms: number): string => new Date(NOW - ms).toISOString();
/** The same instant as epoch milliseconds, as snapshots carry it. */
export const agoMs = (ms: number): number => NOW - ms;

export function resource(overrides: Partial<ResourceSnapshot> = {}): ResourceSnapshot {
  return {
    cluster: "prod",
    tenant: "acme",
    namespace: "acme/orders",
    topic: "persistent://acme/orders/events",
    partition: 0,
    subscription: "billing",
    subscriptionType: "Failover",
    isDurable: true,
    holder: "billing-1",
    holderSince: agoMs(3_600_000),
    consumers: ["billing-1", "billing-2"],
    hashRanges: null,
    backlog: 0,
    msgRateOut: 10,
    recentSamples: [],
    lastObservedAt: agoMs(2_000),
    staleSince: null,
    lastError: null,
    goneAt: null,
    lastChangeAt: agoMs(3_600_000),
    changesInWindow: 0,
    ...overrides,
  };
}

export function cluster(overrides: Partial<ClusterSnapshot> = {}): ClusterSnapshot {
  return { name: "prod", pollIntervalMs: 5_000, lastPollAt: ago(1_000), lastCycleMs: 5_000, lastPollErrorCount: 0, lastPollError: null, ...overrides };
}

export function context(overrides: Partial<RuleContext> = {}): RuleContext {
  return { nowMs: NOW, thresholds: THRESHOLDS, staleAfterMs: 15_000, clusterLastPollAt: ago(1_000), deployments: [], ...overrides };
}
