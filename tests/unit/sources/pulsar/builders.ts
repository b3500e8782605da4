import type { ConsumerObservation, Observation, ResourceState } from "@/lib/poller/contract/partition-state";

export const T0 = "2026-11-22T10:00:00.000Z";
export const T1 = "2026-11-22T10:00:05.000Z";
export const T2 = "2026-11-22T10:00:10.000Z";

export function consumer(name: string, connectedSince: string | null = "2026-11-22T09:00:00.000Z"): ConsumerObservation {
  return { name, connectedSince, msgRateOut: 1, availablePermits: 1000, unackedMessages: 0, lastConsumedAt: null, address: null, clientVersion: null };
}

export function observation(overrides: Partial<Observation> & { holder: string | null; consumers: ConsumerObservation[] }): Observation {
  const topic = overrides.topic ?? "persistent://acme/orders/events";
  const subscription = overrides.subscription ?? "billing";
  const partition = overrides.partition ?? 0;
  return {
    resourceKey: `${topic}|${subscription}|${partition}`,
    topic,
    tenant: "acme",
    namespace: "acme/orders",
    partition,
    subscription,
    subscriptionType: "Failover",
    isDurable: true,
    hashRanges: null,
    backlog: 0,
    msgRateOut: 1,
    ...overrides,
  };
}

export function stateFrom(obs: Observation, at: string, overrides: Partial<ResourceState> = {}): ResourceState {
  return {
    ...obs,
    holderSince: at,
    lastObservedAt: at,
    staleSince: null,
    lastError: null,
    lastErrorAt: null,
    goneAt: null,
    lastChangeAt: null,
    recentSamples: [],
    ...overrides,
  };
}
