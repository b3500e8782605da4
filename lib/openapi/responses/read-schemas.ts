import "server-only";

import { z } from "zod";

import type { LeadersBoard } from "@/lib/board/board-types";
import type { HealthReport } from "@/lib/health/health-report";
import type { ConsumerReport } from "@/lib/consumers/get-consumer";
import type { SubscriptionTimeline } from "@/lib/subscriptions/get-subscription-timeline";
import type { ChangePage } from "@/lib/subscriptions/list-subscription-changes";
import { responseComponents } from "@/lib/openapi/schema-registries";
import type { SameShape } from "@/lib/openapi/responses/same-shape";
import { isoTime } from "@/lib/openapi/responses/shared-schemas";
import { REGISTERED_KINDS } from "@/lib/sources/kind-descriptions";

// What GET /api/health and the read API (leaders, subscriptions, consumers) answer, written
// after the lib functions' return types and checked against them at compile time.

const healthStatus = z.enum(["ok", "degraded", "down"]);
const componentHealth = { status: healthStatus, reason: z.string().nullable(), latencyMs: z.number().nullable() };

const healthVerdictSchema = z
  .object({
    status: z.enum(["ok", "warning", "critical", "unknown"]).meta({
      description:
        "critical or warning: the worst firing alert; unknown: the database is down or no worker evaluates the alert rules; ok only when nothing fires.",
    }),
    firing: z.object({ critical: z.number(), warning: z.number(), total: z.number() }),
    pending: z.number(),
    staleSources: z.array(z.string()).meta({ description: "Clusters with a firing stale alert." }),
    noPoller: z.array(z.string()).meta({ description: "Clusters with a firing no-poller alert." }),
    evaluatorHeartbeatAt: isoTime.nullable(),
    headline: z.string().meta({ description: "What is wrong now, in one line: '2 critical · 1 warning firing', 'Nothing firing', 'No worker'." }),
    problems: z.array(z.string()),
    judgedAt: isoTime,
  })
  .meta({ description: "The one verdict about what Baton watches, from the firing alerts: the header and the Alerts menu item show it, /metrics exports it." });

export const healthReportSchema = z
  .object({
    status: healthStatus.meta({ description: "Whether Baton's own parts answer: the database, each cluster's endpoint and its poller." }),
    verdict: healthVerdictSchema,
    checkedAt: isoTime,
    database: z.object({ ...componentHealth, isEmbedded: z.boolean() }),
    clusters: z.array(
      z.object({
        ...componentHealth,
        name: z.string(),
        kind: z.enum(REGISTERED_KINDS).meta({ description: "The cluster's source kind, as its configuration entry names it." }),
        adminUrl: z.string().meta({ description: "Where the cluster is reached (an admin URL, a Redis address), never a secret." }),
        poller: z
          .object({
            pollerId: z.string().nullable(),
            epoch: z.number().nullable(),
            acquiredAt: isoTime.nullable(),
            heartbeatAt: isoTime.nullable(),
            lastPollAt: isoTime.nullable(),
            lastCycleMs: z.number().nullable(),
            lastDurationMs: z.number().nullable(),
            lastErrorCount: z.number().nullable(),
            lastError: z.string().nullable(),
            topicCount: z.number().nullable(),
            resourceCount: z.number().nullable(),
            failingSince: isoTime.nullable().meta({
              description:
                "Set while the latest poll cycles failed and read nothing of the cluster: when the first of them started. The stale alert fires on it, also for a cluster with no resources.",
            }),
          })
          .nullable(),
      }),
    ),
    replicas: z
      .array(
        z.object({
          replicaId: z.string(),
          isAlive: z.boolean().meta({ description: "Its lock connection holds the fleet's membership lock now." }),
          startedAt: isoTime,
          heartbeatAt: isoTime,
          stoppedAt: isoTime.nullable().meta({ description: "Set when it stopped gracefully (SIGTERM), having handed its clusters over." }),
          clusters: z.array(z.object({ name: z.string(), since: isoTime })).meta({ description: "The clusters it polls now, each since it took the lease." }),
        }),
      )
      .meta({ description: "The worker replicas of the fleet that polls the configured clusters, alive or stopped within a day, by id." }),
  })
  .register(responseComponents, { id: "HealthReport", description: "200 when Baton can serve (ok or degraded), 503 when its database is down." });

export const severity = z.enum(["critical", "unknown", "warning", "info"]);
export const health = z.enum(["critical", "unknown", "warning", "info", "ok"]);

export const healthFlagSchema = z
  .object({
    rule: z.enum([
      "stale",
      "no-active-consumer",
      "flapping",
      "flapping-during-deployment",
      "stuck-leader",
      "hash-range-gap",
      "hash-range-overlap",
      "idle-standbys",
      "one-holder-for-all",
      "gone",
      "reader",
      "expired-while-held",
      "stuck-holder",
      "lock-churn",
      "no-holder",
      "redlock-split",
      "waiters",
      "renewal-risk",
    ]),
    severity,
    label: z.string(),
    detail: z.string(),
    since: isoTime.nullable(),
  })
  .register(responseComponents, { id: "HealthFlag" });

const nextHolderReason = z.enum([
  "no-owner-rule",
  "no-key",
  "key-not-utf8",
  "no-ranges",
  "ranges-not-of-this-line",
  "overlapping-ranges",
  "priority-level-unknown",
  "consumer-name-unknown",
  "consumer-name-charset",
  "rule-disagrees-with-broker",
  "not-partitioned",
  "unknown-consumer",
  "no-queue",
]);

export const nextHolderSchema = z
  .object({
    holder: z
      .string()
      .nullable()
      .meta({ description: "The predicted next holder; null when nobody would be left, or when it cannot be computed (then `reason` says why)." }),
    reason: nextHolderReason.nullable().meta({
      description:
        "Why the next holder cannot be computed (e.g. no-owner-rule for Exclusive, Shared, Key_Shared; no-queue for locks without one); null when it was computed.",
    }),
    detail: z.string().nullable().meta({ description: "The reason in one sentence." }),
  })
  .meta({
    description: "Who takes over if the current holder leaves: the broker's Failover rule rerun without it, or the head of a lock's queue. Never a guess.",
  })
  .register(responseComponents, { id: "NextHolder" });

const leaderRowSchema = z
  .object({
    partition: z.number().int().meta({ description: "-1 for a non-partitioned topic." }),
    holder: z.string().nullable(),
    holderSince: isoTime.nullable(),
    standbys: z.array(z.string()),
    consumerCount: z.number(),
    backlog: z.number().nullable(),
    msgRateOut: z.number().nullable(),
    lastChangeAt: isoTime.nullable(),
    staleSince: isoTime.nullable(),
    goneAt: isoTime.nullable(),
    changesInWindow: z.number(),
    hashShares: z.array(z.object({ consumer: z.string(), share: z.number() })).nullable(),
    next: nextHolderSchema,
    health,
    flags: z.array(healthFlagSchema),
  })
  .register(responseComponents, { id: "LeaderRow" });

const subscriptionGroupSchema = z
  .object({
    key: z.string().meta({ description: "cluster|topic|subscription" }),
    cluster: z.string(),
    tenant: z.string(),
    namespace: z.string(),
    topic: z.string(),
    subscription: z.string(),
    subscriptionType: z.string().nullable(),
    isPartitioned: z.boolean(),
    partitions: z.array(leaderRowSchema),
    holders: z.array(z.string()),
    consumers: z.array(z.string()),
    idleConsumers: z.array(z.string()),
    heldCount: z.number(),
    staleCount: z.number(),
    backlog: z.number().nullable(),
    lastChangeAt: isoTime.nullable(),
    latestHolderSince: isoTime.nullable(),
    health,
    flags: z.array(healthFlagSchema),
  })
  .register(responseComponents, { id: "SubscriptionGroup" });

export const thresholdsSchema = z.object({
  flapChanges: z.number(),
  flapWindowMs: z.number(),
  stuckSamples: z.number(),
  recoveredAfterMs: z
    .number()
    .nullable()
    .describe("BATON_RECOVERED_AFTER_SECONDS: a finding ends once the holder has kept it this long; null: one TTL or lease, a minute where there is none"),
});

export const clusterStatusFields = {
  name: z.string(),
  pollIntervalMs: z.number(),
  lastPollAt: isoTime.nullable(),
  lastPollErrorCount: z.number().nullable(),
  lastPollError: z.string().nullable(),
  lastObservedAt: isoTime.nullable(),
  resourceCount: z.number(),
  isSilent: z.boolean(),
};

export const leadersBoardSchema = z
  .object({
    generatedAt: isoTime,
    thresholds: thresholdsSchema,
    clusters: z.array(
      z.object({
        ...clusterStatusFields,
        predictions: z.object({ predicted: z.number(), confirmed: z.number(), wrong: z.number(), notPredicted: z.number() }).meta({
          description:
            "The cluster's holder changes against the next holder predicted just before each: predicted = confirmed + wrong; notPredicted had no prediction.",
        }),
      }),
    ),
    subscriptions: z.array(subscriptionGroupSchema),
  })
  .register(responseComponents, { id: "LeadersBoard" });

export const changeKind = z.enum(["HOLDER_CHANGED", "HOLDER_LOST", "HOLDER_APPEARED", "HIDDEN_FLAP", "REPLAYED_FLAP", "CONSUMERS_CHANGED", "RANGES_MOVED"]);
export const changeCause = z.enum(["CLIENT", "BROKER", "UNKNOWN"]);
export const holdEnding = z.enum(["RELEASED", "EXPIRED", "TAKEN_OVER"]);

const hashRangeSplitSchema = z
  .object({
    space: z.number().meta({ description: "65,536 (Pulsar 4.x, and 3.x auto-split) or 2,147,483,647 (3.x consistent hashing)." }),
    consumers: z.array(z.object({ consumer: z.string(), ranges: z.array(z.tuple([z.number(), z.number()])) })),
  })
  .register(responseComponents, { id: "HashRangeSplit", description: "Key_Shared: each consumer's inclusive [start, end] ranges of sticky-key hashes." });

export const segmentSchema = z.object({
  start: z.number().meta({ description: "Epoch milliseconds." }),
  end: z.number().meta({ description: "Epoch milliseconds." }),
  kind: z.enum(["held", "none", "shared", "unobserved", "busy"]),
  holder: z.string().nullable(),
  tenures: z.number().optional(),
  holders: z.array(z.string()).optional(),
});

export const markerSchema = z.object({
  at: z.number().meta({ description: "Epoch milliseconds." }),
  partition: z.number(),
  kind: changeKind,
  cause: changeCause,
  fromHolder: z.string().nullable(),
  toHolder: z.string().nullable(),
  isDuringGap: z.boolean(),
  ending: holdEnding.nullable().optional().meta({ description: "Locks: how the previous hold ended; absent for Pulsar." }),
  count: z.number(),
});

export const timelineSchema = z
  .object({
    from: isoTime,
    to: isoTime,
    lanes: z.array(z.object({ partition: z.number(), label: z.string(), segments: z.array(segmentSchema) })),
    markers: z.array(markerSchema),
    bands: z.array(z.object({ service: z.string(), version: z.string(), start: z.number(), end: z.number(), isInProgress: z.boolean() })),
    consumers: z.array(z.string()),
    changeCount: z.number(),
    isDownsampled: z.boolean(),
  })
  .register(responseComponents, {
    id: "Timeline",
    description: "Lanes of tenures (a partition's, or a lock's), change markers and deployment bands over a range.",
  });

export const subscriptionTimelineSchema = z
  .object({
    subscription: subscriptionGroupSchema,
    partitions: z.array(
      z.object({
        partition: z.number(),
        consumers: z.array(
          z.object({
            name: z.string(),
            connectedSince: isoTime.nullable(),
            msgRateOut: z.number().nullable(),
            availablePermits: z.number().nullable(),
            unackedMessages: z.number().nullable(),
            lastConsumedAt: z.number().nullable().meta({ description: "Epoch milliseconds." }),
            address: z.string().nullable(),
            clientVersion: z.string().nullable(),
          }),
        ),
        hashRanges: hashRangeSplitSchema.nullable(),
      }),
    ),
    timeline: timelineSchema,
    unmatchedDeploymentCount: z.number(),
  })
  .register(responseComponents, { id: "SubscriptionTimeline" });

export const changeEntryFields = {
  id: z.string(),
  partition: z.number(),
  kind: changeKind,
  cause: changeCause,
  ending: holdEnding.nullable().meta({ description: "Locks: how the previous hold ended; null for Pulsar and for acquisitions." }),
  fromHolder: z.string().nullable(),
  toHolder: z.string().nullable(),
  oldSeenAt: isoTime.nullable().meta({ description: "The change happened in (oldSeenAt, newSeenAt]." }),
  newSeenAt: isoTime,
  detectedAt: isoTime,
  isDuringGap: z.boolean(),
  details: z.record(z.string(), z.unknown()),
  predictedHolder: z
    .string()
    .nullable()
    .meta({ description: "The next holder Baton predicted from the state just before the change (null: nobody, or no prediction)." }),
  prediction: z.enum(["CONFIRMED", "WRONG", "NOT_PREDICTED"]).nullable().meta({
    description:
      "How the change compares with that prediction; null when no prediction covers it (an appearance, a flap, a holder that left with other consumers).",
  }),
};

export const changePageSchema = z
  .object({
    changes: z.array(z.object(changeEntryFields).register(responseComponents, { id: "HolderChange" })),
    total: z.number().meta({ description: "Every change in the range, not only this page." }),
    nextCursor: z.string().nullable().meta({ description: "Pass as `cursor` for the next (older) page; null on the last." }),
  })
  .register(responseComponents, { id: "ChangePage" });

export const consumerReportSchema = z
  .object({
    name: z.string(),
    positions: z.array(
      z.object({
        cluster: z.string(),
        topic: z.string(),
        partition: z.number(),
        subscription: z.string(),
        subscriptionType: z.string().nullable(),
        isHolder: z.boolean(),
        holder: z.string().nullable(),
        holderSince: isoTime.nullable(),
        connectedSince: isoTime.nullable(),
        msgRateOut: z.number().nullable(),
        address: z.string().nullable(),
        clientVersion: z.string().nullable(),
        lastObservedAt: isoTime.nullable(),
        staleSince: isoTime.nullable(),
        goneAt: isoTime.nullable(),
      }),
    ),
    locks: z
      .array(
        z.object({
          cluster: z.string(),
          key: z.string(),
          pattern: z.string(),
          role: z.enum(["holder", "waiter"]),
          queuePosition: z.number().nullable().meta({ description: "Its place in the queue (1 = next), for a waiter." }),
          holder: z.string().nullable(),
          holderSince: isoTime.nullable(),
          expiresAt: isoTime.nullable(),
          lastObservedAt: isoTime
            .nullable()
            .meta({ description: "When Baton's poller last read the lock: once the expiry has passed, the TTL left is told from this read." }),
          waiterCount: z.number(),
          staleSince: isoTime.nullable(),
        }),
      )
      .meta({ description: "The locks the name holds or waits for, held first." }),
    history: z.array(z.object({ ...changeEntryFields, cluster: z.string(), topic: z.string(), subscription: z.string(), resourceKey: z.string() })),
    historyTotal: z.number(),
    nextCursor: z.string().nullable(),
  })
  .register(responseComponents, { id: "ConsumerReport" });

true satisfies SameShape<z.output<typeof healthReportSchema>, HealthReport>;
true satisfies SameShape<z.output<typeof leadersBoardSchema>, LeadersBoard>;
true satisfies SameShape<z.output<typeof subscriptionTimelineSchema>, SubscriptionTimeline>;
true satisfies SameShape<z.output<typeof changePageSchema>, ChangePage>;
true satisfies SameShape<z.output<typeof consumerReportSchema>, ConsumerReport>;
