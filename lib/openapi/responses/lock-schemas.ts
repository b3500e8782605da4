import "server-only";

import { z } from "zod";

import { LOCK_RESOURCE_KINDS, LOCK_SOURCE_KINDS, type LocksBoard } from "@/lib/board/lock-types";
import type { LockTimeline } from "@/lib/locks/get-lock-timeline";
import type { LockChangePage } from "@/lib/locks/list-lock-changes";
import { responseComponents } from "@/lib/openapi/schema-registries";
import {
  changeEntryFields,
  nextHolderSchema,
  changeKind,
  clusterStatusFields,
  health,
  healthFlagSchema,
  holdEnding,
  thresholdsSchema,
  timelineSchema,
} from "@/lib/openapi/responses/read-schemas";
import type { SameShape } from "@/lib/openapi/responses/same-shape";
import { isoTime } from "@/lib/openapi/responses/shared-schemas";

// What the locks read API answers (GET /api/v1/locks, /locks/timeline, /locks/changes), written
// after the lib functions' return types and checked against them at compile time.

const lockRowSchema = z
  .object({
    id: z.string().meta({ description: "cluster|key" }),
    cluster: z.string(),
    sourceKind: z.enum(LOCK_SOURCE_KINDS),
    resourceKind: z.enum(LOCK_RESOURCE_KINDS),
    key: z.string(),
    pattern: z.string().meta({ description: "The configured pattern that found it." }),
    layout: z.string().nullable().meta({ description: "The pattern's layout (`token`, `redisson`) when the cluster's scope names it." }),
    isMustBeHeld: z.boolean().meta({ description: "Its pattern is a leader election: nobody holding it is critical." }),
    holder: z.string().nullable().meta({ description: "The current holder; when stale, the last known one." }),
    holderToken: z.string().nullable(),
    holderSince: isoTime.nullable(),
    expiresAt: isoTime.nullable().meta({ description: "When the hold ends unless renewed; count the TTL left from it." }),
    ttlMs: z.number().nullable(),
    waiters: z.array(z.string()).meta({ description: "Queued contenders, in queue order." }),
    isSplit: z.boolean().meta({ description: "Redlock: no majority of the masters agrees on one token." }),
    details: z.record(z.string(), z.unknown()).meta({ description: "The source kind's own details (reentrancy count, per-master tokens...)." }),
    stats: z.object({ tenureMaxTtlMs: z.number().nullable(), nearExpiryCount: z.number(), longestHoldMs: z.number() }),
    firstSeenAt: isoTime,
    lastObservedAt: isoTime.nullable(),
    staleSince: isoTime.nullable(),
    goneAt: isoTime.nullable(),
    lastChange: z
      .object({ kind: changeKind, ending: holdEnding.nullable(), fromHolder: z.string().nullable(), toHolder: z.string().nullable(), at: isoTime })
      .nullable(),
    changesInWindow: z.number(),
    expiriesInHour: z.number(),
    next: nextHolderSchema,
    health,
    flags: z.array(healthFlagSchema),
    ended: z
      .array(
        z.object({
          rule: z.enum(["expired-while-held", "lock-churn"]),
          text: z
            .string()
            .describe("What happened and how it ended, e.g. 'recovered: expired while held by sched-a at 19:00:16 UTC, taken over by sched-b 1 s later'"),
          startedAt: isoTime.nullable(),
          endedAt: isoTime,
        }),
      )
      .describe("Findings of the last hour that have ended: the lock is healthy again"),
  })
  .register(responseComponents, { id: "LockRow" });

export const locksBoardSchema = z
  .object({
    generatedAt: isoTime,
    thresholds: thresholdsSchema,
    clusters: z
      .array(z.object({ ...clusterStatusFields, sourceKind: z.enum(LOCK_SOURCE_KINDS) }))
      .meta({ description: "The configured clusters that hold locks; empty when none is configured." }),
    locks: z.array(lockRowSchema),
  })
  .register(responseComponents, { id: "LocksBoard" });

export const lockTimelineSchema = z
  .object({
    locks: z.array(lockRowSchema),
    timeline: timelineSchema,
    hiddenLockCount: z.number().meta({ description: "Locks of the pattern past the first 50 keys, not drawn." }),
    unmatchedDeploymentCount: z.number(),
  })
  .register(responseComponents, { id: "LockTimeline" });

const { partition: _partition, ...lockChangeFields } = changeEntryFields;

export const lockChangePageSchema = z
  .object({
    changes: z.array(z.object({ ...lockChangeFields, key: z.string() }).register(responseComponents, { id: "LockChange" })),
    total: z.number().meta({ description: "Every change in the range, not only this page." }),
    nextCursor: z.string().nullable().meta({ description: "Pass as `cursor` for the next (older) page; null on the last." }),
  })
  .register(responseComponents, { id: "LockChangePage" });

true satisfies SameShape<z.output<typeof locksBoardSchema>, LocksBoard>;
true satisfies SameShape<z.output<typeof lockTimelineSchema>, LockTimeline>;
true satisfies SameShape<z.output<typeof lockChangePageSchema>, LockChangePage>;
