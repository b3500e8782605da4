// The read API's answers for violations (docs/http-api.md, "Violations read API"): plain JSON, times as ISO
// strings. Client-safe: the views import these types, the queries build them.

/** Counts of one bucket, service, subscription, key or worker. */
export type ViolationCounts = {
  /** Events whose counter was above zero. */
  violations: number;
  /** Violations inside a deployment window of the same service: the cause "rollout". */
  inside: number;
  /** Violations outside every deployment window: each has one of the other causes (lib/violations/violation-cause.ts). */
  outside: number;
};

export type TimelineBucket = {
  start: string;
  end: string;
  /** Cut by the range's ends, or not over yet. */
  isPartial: boolean;
  /** null: no event at all was reported in this bucket (unobserved), which is not "no violation". */
  total: ViolationCounts | null;
  /**
   * The services with violations somewhere in the range that reported events in this bucket
   * (zeros when none of them was a violation); a service missing here reported nothing.
   */
  byService: Record<string, ViolationCounts>;
  /**
   * Increments reported in the bucket for the query's scope: events stored plus the per-minute
   * counts of clients in "violations+counts" mode (the rate). null when nothing was reported.
   */
  increments: number | null;
};

export type TrendDirection = "rising" | "falling" | "steady" | "none" | "unobserved";

/** Outside-deployment violations in the later half of the range against the earlier half. */
export type ViolationTrend = {
  direction: TrendDirection;
  /** Where the halves meet (a bucket boundary). */
  splitAt: string;
  earlier: { outside: number; observedMs: number };
  later: { outside: number; observedMs: number };
};

export type DeploymentBand = {
  id: string;
  service: string;
  version: string;
  environment: string;
  startedAt: string;
  /** null while in progress. */
  finishedAt: string | null;
  /**
   * Where classification ends (exclusive): the minute after the one in which the finish (or
   * now, at most a day after the start) plus the grace period falls. It starts at the minute of
   * startedAt.
   */
  windowEnd: string;
  link: string | null;
};

export type NamedCounts = ViolationCounts & { name: string };
export type TopRanking = "violations" | "outside";
export type SubscriptionCounts = ViolationCounts & { service: string; subscription: string };

export type ViolationTimeline = {
  from: string;
  to: string;
  timeZone: string;
  bucketMs: number;
  graceMs: number;
  /** Only deployments of this environment classify, when set. */
  environment: string | null;
  buckets: TimelineBucket[];
  totals: ViolationCounts;
  trend: ViolationTrend;
  /** Every service with violations in the range, most violations first. */
  services: NamedCounts[];
  subscriptions: SubscriptionCounts[];
  /** Deployments (of the services in scope) whose window overlaps the range, by start. */
  deployments: DeploymentBand[];
};

export type TopViolations = {
  from: string;
  to: string;
  ranking: TopRanking;
  /** Ranked from raw violations (the rollup does not keep keys and workers); null when not asked for. */
  keys: NamedCounts[] | null;
  workers: NamedCounts[] | null;
  services: NamedCounts[];
  subscriptions: SubscriptionCounts[];
};

export type LeaderChangeMarker = {
  id: string;
  cluster: string;
  topic: string;
  partition: number;
  subscription: string;
  kind: string;
  cause: string;
  fromHolder: string | null;
  toHolder: string | null;
  /** The change happened in (oldSeenAt, newSeenAt]. */
  oldSeenAt: string | null;
  newSeenAt: string;
};

export type LeaderChangeMarkers = {
  from: string;
  to: string;
  /** Per chart bucket: how many changes, and the first few. */
  buckets: { start: string; end: string; count: number; changes: LeaderChangeMarker[] }[];
  total: number;
};
