// The leaders board's shapes: what the read model hands the rules (snapshots) and what the
// board, its API and its pages get back (plain JSON: ISO strings, numbers). Client-safe.

import type { NextHolder } from "@/lib/poller/next-holder";
import type { HashRangeSplit } from "@/lib/poller/contract/hash-range-split";

/** How bad a health flag is. "unknown": Baton cannot tell (stale data), which is itself an alarm. */
export type Severity = "critical" | "unknown" | "warning" | "info";
/** A row's overall health: its worst flag, or ok. */
export type Health = Severity | "ok";

export type HealthRule =
  | "stale"
  | "no-active-consumer"
  | "flapping"
  | "flapping-during-deployment"
  | "stuck-leader"
  | "hash-range-gap"
  | "hash-range-overlap"
  | "idle-standbys"
  | "one-holder-for-all"
  | "gone"
  | "reader"
  // Locks (lib/board/lock-health-rules.ts).
  | "expired-while-held"
  | "stuck-holder"
  | "lock-churn"
  | "no-holder"
  | "redlock-split"
  | "waiters"
  | "renewal-risk";

export type HealthFlag = {
  rule: HealthRule;
  severity: Severity;
  /** Short, complete words: health is never told by colour alone. */
  label: string;
  /** The evidence, one sentence. */
  detail: string;
  /** When the condition began, if it has a start (stale since, gone since); rendered in the reader's time zone. */
  since: string | null;
};

/** The board's thresholds (BATON_FLAP_CHANGES, BATON_FLAP_WINDOW_MINUTES, BATON_STUCK_SAMPLES). */
export type BoardThresholds = {
  flapChanges: number;
  flapWindowMs: number;
  stuckSamples: number;
  /** BATON_RECOVERED_AFTER_SECONDS: how long a holder keeps it before a finding ends (null: one TTL, else a minute). */
  recoveredAfterMs: number | null;
};

/** A recent (time, backlog, rate, holder) sample of a resource, oldest first. */
export type SampleSnapshot = { at: string; backlog: number | null; msgRateOut: number | null; holder: string | null };

/** One held resource as the read model loads it: what the rules judge. Times are epoch milliseconds. */
export type ResourceSnapshot = {
  cluster: string;
  tenant: string;
  namespace: string;
  topic: string;
  /** -1 for a non-partitioned topic. */
  partition: number;
  subscription: string;
  subscriptionType: string | null;
  isDurable: boolean;
  holder: string | null;
  holderSince: number | null;
  /** Consumer names, as the broker lists them. */
  consumers: string[];
  hashRanges: HashRangeSplit | null;
  backlog: number | null;
  msgRateOut: number | null;
  /** The newest samples (at most stuckSamples of them), oldest first. */
  recentSamples: SampleSnapshot[];
  lastObservedAt: number | null;
  staleSince: number | null;
  lastError: string | null;
  goneAt: number | null;
  lastChangeAt: number | null;
  /** Holder changes (changed, lost, appeared, hidden flap) inside the flapping window. */
  changesInWindow: number;
};

/** A cluster as the read model loads it: how often it should be polled and when it last was. */
export type ClusterSnapshot = {
  name: string;
  pollIntervalMs: number;
  /** The end of its latest poll cycle (successful or not); null if never polled. */
  lastPollAt: string | null;
  lastCycleMs: number | null;
  /** Errors of that cycle, and the first one's message. */
  lastPollErrorCount: number | null;
  lastPollError: string | null;
};

/** A deployment whose window overlaps the flapping window. */
export type DeploymentWindow = { service: string; version: string; startedAt: string; finishedAt: string | null };

export type LeaderRow = {
  partition: number;
  /** The current holder; when the row is stale, the last known one (label it so). */
  holder: string | null;
  holderSince: string | null;
  /** Consumers that do not hold this partition (for Key_Shared: every consumer). */
  standbys: string[];
  consumerCount: number;
  backlog: number | null;
  msgRateOut: number | null;
  lastChangeAt: string | null;
  /** Set when the data is not current: the poll fails, or nobody has polled for a while (the stale flag says why). */
  staleSince: string | null;
  goneAt: string | null;
  changesInWindow: number;
  /** Key_Shared: each consumer's share of the hash space, largest first. */
  hashShares: { consumer: string; share: number }[] | null;
  /** Who becomes the active consumer if the holder leaves (lib/sources/pulsar/predict-next-consumer.ts). */
  next: NextHolder;
  health: Health;
  flags: HealthFlag[];
};

export type SubscriptionGroup = {
  /** cluster|topic|subscription */
  key: string;
  cluster: string;
  tenant: string;
  namespace: string;
  topic: string;
  subscription: string;
  subscriptionType: string | null;
  isPartitioned: boolean;
  partitions: LeaderRow[];
  /** Distinct current holders over the partitions that are not stale. */
  holders: string[];
  /** Distinct consumer names over every partition. */
  consumers: string[];
  /** Consumers that hold no partition. */
  idleConsumers: string[];
  /** Partitions with a (current) holder, and partitions whose data is stale. */
  heldCount: number;
  staleCount: number;
  backlog: number | null;
  lastChangeAt: string | null;
  /** The most recent holderSince over the partitions: the newest tenure. */
  latestHolderSince: string | null;
  health: Health;
  /** Subscription-level flags and the partitions' flags, one per rule. */
  flags: HealthFlag[];
};

export type ClusterStatus = {
  name: string;
  pollIntervalMs: number;
  lastPollAt: string | null;
  lastPollErrorCount: number | null;
  lastPollError: string | null;
  /** The newest successful observation of any of its resources. */
  lastObservedAt: string | null;
  resourceCount: number;
  /** No poll for longer than the staleness limit: the worker may be down. */
  isSilent: boolean;
};

/**
 * How a cluster's holder changes compared with the next holder Baton predicted just before each:
 * `predicted` = `confirmed` + `wrong`; `notPredicted` counts the changes without a prediction.
 */
export type PredictionScore = { predicted: number; confirmed: number; wrong: number; notPredicted: number };

export const NO_PREDICTIONS: PredictionScore = { predicted: 0, confirmed: 0, wrong: 0, notPredicted: 0 };

export type LeaderClusterStatus = ClusterStatus & { predictions: PredictionScore };

export type LeadersBoard = {
  generatedAt: string;
  thresholds: BoardThresholds;
  clusters: LeaderClusterStatus[];
  subscriptions: SubscriptionGroup[];
};
