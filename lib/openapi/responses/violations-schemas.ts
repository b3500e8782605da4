import "server-only";

import { z } from "zod";

import type { KeyDrilldown } from "@/lib/violations/drilldown-types";
import type { DeploymentViolations } from "@/lib/violations/queries/get-deployment-violations";
import type { ViolationCauses } from "@/lib/violations/queries/get-violation-causes";
import type { DeploymentCoincidences } from "@/lib/violations/queries/list-deployment-coincidences";
import { CAUSE_LABEL, CAUSE_MEANING, VIOLATION_CAUSES } from "@/lib/violations/cause-words";
import type { LeaderChangeMarkers, TopViolations, ViolationTimeline } from "@/lib/violations/violation-types";
import { responseComponents } from "@/lib/openapi/schema-registries";
import type { SameShape } from "@/lib/openapi/responses/same-shape";
import { isoTime } from "@/lib/openapi/responses/shared-schemas";

// What the violations read API answers, written after lib/violations' types and checked
// against them at compile time.

const countFields = {
  violations: z.number().int().meta({ description: "Events whose counter was above zero." }),
  inside: z.number().int().meta({ description: 'Violations inside a deployment window of the same service: the cause "rollout".' }),
  outside: z.number().int().meta({
    description: "Violations outside every deployment window: every other cause (two-hands, holder-stalled, worker-stalled, failover-overlap, unexplained).",
  }),
};

/** The causes, each with its meaning, in precedence order (the first whose evidence holds wins). */
const CAUSES_NOTE = VIOLATION_CAUSES.map((cause, i) => `${i + 1}. "${cause}" (${CAUSE_LABEL[cause]}): ${CAUSE_MEANING[cause]}`).join("; ");

const violationCauseSchema = z
  .enum(VIOLATION_CAUSES)
  .meta({ description: `Why the violation happened, by one precedence: ${CAUSES_NOTE}.` })
  .register(responseComponents, { id: "ViolationCause" });
const causeCountsSchema = z
  .object({
    "two-hands": z.number().int(),
    rollout: z.number().int(),
    "holder-stalled": z.number().int(),
    "worker-stalled": z.number().int(),
    "failover-overlap": z.number().int(),
    unexplained: z.number().int(),
  })
  .meta({ description: "Violations per cause: every cause present, adding up to the violations counted." })
  .register(responseComponents, { id: "ViolationCauseCounts" });
const violationCountsSchema = z.object(countFields).register(responseComponents, { id: "ViolationCounts" });
const namedCountsSchema = z.object({ ...countFields, name: z.string() }).register(responseComponents, { id: "NamedViolationCounts" });
const subscriptionCountsSchema = z
  .object({ ...countFields, service: z.string(), subscription: z.string() })
  .register(responseComponents, { id: "SubscriptionViolationCounts" });

const ownerChangeSchema = z
  .object({
    from: z.string().nullable(),
    to: z.string().nullable(),
    changedAfter: isoTime.nullable().meta({ description: "The last poll that saw the old owner: the change happened in (changedAfter, changedAt]." }),
    changedAt: isoTime,
    rangeBefore: z
      .tuple([z.number().int(), z.number().int()])
      .nullable()
      .meta({ description: "Key_Shared: the range that held the key's hash before the change." }),
    joined: z.array(z.string()).meta({ description: "Consumers that joined with the change (Key_Shared)." }),
    left: z.array(z.string()).meta({ description: "Consumers that left with the change (Key_Shared)." }),
  })
  .register(responseComponents, { id: "OwnerChange" });

const violationOwnerSchema = z
  .discriminatedUnion("isComputed", [
    z.object({
      isComputed: z.literal(true),
      rule: z
        .enum(["key-shared", "failover"])
        .meta({ description: "key-shared: the key's sticky-key hash in the split valid then; failover: the partition's leader then." }),
      owner: z.string().nullable(),
      hash: z.number().int().nullable().meta({ description: "Key_Shared: the broker's sticky-key hash of the key." }),
      range: z.tuple([z.number().int(), z.number().int()]).nullable(),
      partition: z.number().int().meta({ description: "-1 when the topic is not partitioned." }),
      isPartitionRouted: z
        .boolean()
        .meta({ description: "True when the partition was computed from the key with the producers' routing (BATON_PRODUCER_ROUTING)." }),
      change: ownerChangeSchema
        .nullable()
        .meta({ description: "The change of owner within the drill-down window around the violation; null: the owner was stable." }),
    }),
    z.object({
      isComputed: z.literal(false),
      reason: z.enum([
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
        "no-resource",
        "no-history",
        "partition-count-changed",
      ]),
      detail: z.string(),
    }),
  ])
  .register(responseComponents, { id: "ViolationOwner" });

const bandFields = {
  id: z.string(),
  service: z.string(),
  version: z.string(),
  environment: z.string(),
  startedAt: isoTime,
  finishedAt: isoTime.nullable().meta({ description: "null while in progress." }),
  windowEnd: isoTime.meta({ description: "Where classification ends (exclusive): the minute after finish (or now) plus the grace period." }),
  link: z.string().nullable(),
};
const deploymentBandSchema = z.object(bandFields).register(responseComponents, { id: "DeploymentBand" });

const leaderChangeMarkerSchema = z
  .object({
    id: z.string(),
    cluster: z.string(),
    topic: z.string(),
    partition: z.number().int(),
    subscription: z.string(),
    kind: z.string(),
    cause: z.string(),
    fromHolder: z.string().nullable(),
    toHolder: z.string().nullable(),
    oldSeenAt: isoTime.nullable(),
    newSeenAt: isoTime,
  })
  .register(responseComponents, { id: "LeaderChangeMarker" });

const otherInsideSchema = z.object({ worker: z.string(), enteredAt: isoTime });

const lockChangeMarkerSchema = z
  .object({
    id: z.string(),
    lock: z.string(),
    kind: z.string(),
    ending: z.string().nullable().meta({ description: "How the previous hold ended: RELEASED, EXPIRED (while held) or TAKEN_OVER; null for an acquisition." }),
    fromHolder: z.string().nullable(),
    toHolder: z.string().nullable(),
    oldSeenAt: isoTime.nullable(),
    newSeenAt: isoTime,
    expiresAtBefore: isoTime.nullable(),
    acquiredAt: isoTime.nullable(),
  })
  .register(responseComponents, { id: "LockChangeMarker" });

export const violationTimelineSchema = z
  .object({
    from: isoTime,
    to: isoTime,
    timeZone: z.string(),
    bucketMs: z.number(),
    graceMs: z.number(),
    environment: z.string().nullable(),
    buckets: z.array(
      z.object({
        start: isoTime,
        end: isoTime,
        isPartial: z.boolean(),
        total: violationCountsSchema
          .nullable()
          .meta({ description: "null: no event at all was reported in this bucket (unobserved), which is not “no violation”." }),
        byService: z.record(z.string(), violationCountsSchema),
        increments: z.number().nullable().meta({
          description:
            "Increments reported in the bucket (events, plus the per-minute counts of clients in violations+counts mode); null where nothing was reported (a silent reporter), 0 a quiet one. Only without a service filter.",
        }),
      }),
    ),
    totals: violationCountsSchema,
    trend: z.object({
      direction: z.enum(["rising", "falling", "steady", "none", "unobserved"]),
      splitAt: isoTime,
      earlier: z.object({ outside: z.number(), observedMs: z.number() }),
      later: z.object({ outside: z.number(), observedMs: z.number() }),
    }),
    services: z.array(namedCountsSchema),
    subscriptions: z.array(subscriptionCountsSchema),
    deployments: z.array(deploymentBandSchema),
  })
  .register(responseComponents, { id: "ViolationTimeline" });

export const topViolationsSchema = z
  .object({
    from: isoTime,
    to: isoTime,
    ranking: z.enum(["violations", "outside"]),
    keys: z.array(namedCountsSchema).nullable().meta({ description: "null when not asked for in `lists`." }),
    workers: z.array(namedCountsSchema).nullable().meta({ description: "null when not asked for in `lists`." }),
    services: z.array(namedCountsSchema),
    subscriptions: z.array(subscriptionCountsSchema),
  })
  .register(responseComponents, { id: "TopViolations" });

export const leaderChangeMarkersSchema = z
  .object({
    from: isoTime,
    to: isoTime,
    buckets: z.array(z.object({ start: isoTime, end: isoTime, count: z.number(), changes: z.array(leaderChangeMarkerSchema) })),
    total: z.number(),
  })
  .register(responseComponents, { id: "LeaderChangeMarkers" });

export const keyDrilldownSchema = z
  .object({
    key: z.string(),
    from: isoTime,
    to: isoTime,
    focusEventId: z.string().nullable(),
    windowMs: z.number(),
    graceMs: z.number(),
    rawSince: isoTime.meta({ description: "Raw events older than this are deleted by retention (the charts keep their counts)." }),
    events: z.array(
      z.object({
        eventId: z.string(),
        key: z.string(),
        counter: z.number().int(),
        isViolation: z.boolean(),
        service: z.string(),
        worker: z.string(),
        topic: z.string().nullable(),
        subscription: z.string().nullable(),
        partition: z.number().int().nullable(),
        traceId: z.string().nullable(),
        traceUrl: z.string().nullable(),
        observedAt: isoTime,
        receivedAt: isoTime,
        resource: z.object({ topic: z.string(), subscription: z.string(), partition: z.number().int().nullable() }).nullable(),
        othersInside: z
          .array(otherInsideSchema)
          .nullable()
          .meta({ description: "On a violation from a client that records who is inside: the workers inside when this one entered." }),
        lock: z.string().nullable().meta({ description: 'The lock the work ran under, "<cluster>/<lock key>", when the client named it.' }),
        twoHands: z.string().optional().meta({
          description:
            'On a double run Baton\'s poller saw in a lock\'s own records (cause "two-hands"): what saw it: "quartz" or "shedlock". Absent on every event a client sent.',
        }),
      }),
    ),
    eventLimit: z.number(),
    isTruncated: z.boolean(),
    counts: z.object({ ...countFields, events: z.number().int() }),
    workers: z.array(
      z.object({ worker: z.string(), services: z.array(z.string()), events: z.number(), violations: z.number(), firstAt: isoTime, lastAt: isoTime }),
    ),
    overlaps: z.array(z.object({ entered: z.string(), inside: z.string(), count: z.number() })),
    leaderChanges: z.array(leaderChangeMarkerSchema),
    lockChanges: z.array(lockChangeMarkerSchema).meta({ description: "Holder changes of the locks the events name, within the window of some event." }),
    deployments: z.array(deploymentBandSchema),
    causes: causeCountsSchema,
    explanations: z.array(
      z.object({
        eventId: z.string(),
        previousEntry: z.object({ eventId: z.string(), worker: z.string(), observedAt: isoTime, gapMs: z.number() }).nullable(),
        othersInside: z
          .array(otherInsideSchema.extend({ insideForMs: z.number() }))
          .meta({ description: "From the violation's own row: who was inside, and for how long, when this worker entered." }),
        insideDeploymentIds: z.array(z.string()),
        nearbyDeploymentIds: z.array(z.string()),
        leaderChangeIds: z.array(z.string()),
        lockChangeIds: z.array(z.string()),
        cause: violationCauseSchema,
        owner: violationOwnerSchema
          .nullable()
          .meta({ description: "Who owned the key at the violation's time, and whether that changed around it; null without a topic and subscription." }),
        wakeAfterMove: z
          .object({ from: z.string().nullable(), to: z.string().nullable(), changedAfter: isoTime.nullable(), changedAt: isoTime })
          .nullable()
          .meta({
            description:
              "The move of the key away from the worker that entered, which that worker slept through (it had sent no event for 5 s when the move was seen): a frozen worker woken up, counted as 'worker stalled'. Null otherwise.",
          }),
      }),
    ),
  })
  .register(responseComponents, { id: "KeyDrilldown" });

export const deploymentCoincidencesSchema = z
  .object({
    from: isoTime,
    to: isoTime,
    graceMs: z.number(),
    total: z.number(),
    limit: z.number(),
    deployments: z.array(z.object({ ...bandFields, description: z.string().nullable(), violations: z.number().int() })),
    services: z.array(z.string()),
    environments: z.array(z.string()),
  })
  .register(responseComponents, { id: "DeploymentCoincidences" });

const namedViolationsSchema = z.object({ name: z.string(), violations: z.number().int() });

export const deploymentViolationsSchema = z
  .object({
    deployment: z.object({ ...bandFields, description: z.string().nullable() }),
    graceMs: z.number(),
    total: z.number().meta({ description: "Raw violations of the deployment's service inside its window." }),
    keys: z.array(namedViolationsSchema),
    workers: z.array(namedViolationsSchema),
    events: z.array(
      z.object({
        eventId: z.string(),
        key: z.string(),
        worker: z.string(),
        subscription: z.string().nullable(),
        counter: z.number().int(),
        traceId: z.string().nullable(),
        traceUrl: z.string().nullable(),
        observedAt: isoTime,
      }),
    ),
  })
  .register(responseComponents, { id: "DeploymentViolations" });

export const violationCausesSchema = z
  .object({
    from: isoTime,
    to: isoTime,
    windowMs: z.number().meta({ description: "A leader, lock or owner change this close to a violation counts as around it." }),
    limit: z.number().int(),
    isTruncated: z.boolean().meta({ description: "The range holds more violations than the page: the page and its counts hold the latest." }),
    counts: causeCountsSchema,
    violations: z.array(
      z.object({
        eventId: z.string(),
        key: z.string(),
        service: z.string(),
        worker: z.string(),
        topic: z.string().nullable(),
        subscription: z.string().nullable(),
        partition: z.number().int().nullable(),
        lock: z.string().nullable(),
        observedAt: isoTime,
        cause: violationCauseSchema,
        owner: violationOwnerSchema,
      }),
    ),
  })
  .register(responseComponents, { id: "ViolationCauses" });

true satisfies SameShape<z.output<typeof violationTimelineSchema>, ViolationTimeline>;
true satisfies SameShape<z.output<typeof violationCausesSchema>, ViolationCauses>;
true satisfies SameShape<z.output<typeof topViolationsSchema>, TopViolations>;
true satisfies SameShape<z.output<typeof leaderChangeMarkersSchema>, LeaderChangeMarkers>;
true satisfies SameShape<z.output<typeof keyDrilldownSchema>, KeyDrilldown>;
true satisfies SameShape<z.output<typeof deploymentCoincidencesSchema>, DeploymentCoincidences>;
true satisfies SameShape<z.output<typeof deploymentViolationsSchema>, DeploymentViolations>;
