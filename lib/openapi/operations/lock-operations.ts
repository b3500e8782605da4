import "server-only";

import type { OperationSpec } from "@/lib/openapi/operation-types";
import { lockChangePageSchema, locksBoardSchema, lockTimelineSchema } from "@/lib/openapi/responses/lock-schemas";
import { lockChangesParamsSchema, lockTimelineParamsSchema, locksParamsSchema } from "@/lib/http/read-api-params";

// The read API of locks (Redis, ZooKeeper, etcd, DynamoDB): the list, a lock's (or a
// pattern's) timeline, and its changes. The examples' ranges end at `nowMs`.

const CLUSTER_NOTE = "A `cluster` must name a configured cluster (BATON_CLUSTERS): another name is a 400 that lists them.";

export function lockOperations(nowMs: number): OperationSpec[] {
  const hourAgo = new Date(nowMs - 3_600_000).toISOString();
  const now = new Date(nowMs).toISOString();
  return [
    {
      path: "/api/v1/locks",
      method: "get",
      operationId: "listLocks",
      tag: "Read",
      summary: "Every lock",
      description: `Every lock of the configured lock clusters with its holder, expiry, waiters, latest change and health, in name order (cluster, key). ${CLUSTER_NOTE}`,
      query: {
        schema: locksParamsSchema,
        examples: {
          all: { summary: "Every lock", value: {} },
          filtered: {
            summary: "One cluster's Redis locks of a pattern, searched",
            value: { cluster: "redis-main", kind: "redis", pattern: "lock:*", q: "daily", includeGone: "true" },
          },
        },
      },
      responses: [{ status: 200, description: "The locks.", schema: locksBoardSchema }],
      errors: ["invalid_request"],
    },
    {
      path: "/api/v1/locks/timeline",
      method: "get",
      operationId: "getLockTimeline",
      tag: "Read",
      summary: "A lock's holder timeline",
      description: `One lock (\`key\`) or every lock of a pattern (\`pattern\`, a lane per key, the first 50): tenures with unobserved gaps, a marker per change with how the hold ended, deployment bands (default the last 6 hours). ${CLUSTER_NOTE}`,
      query: {
        schema: lockTimelineParamsSchema,
        examples: {
          lock: { summary: "One lock, the last 6 hours", value: { cluster: "redis-main", key: "lock:daily-job" } },
          pattern: {
            summary: "A pattern's locks over an hour, every deployment",
            value: { cluster: "redis-main", pattern: "lock:*", from: hourAgo, to: now, deployments: "all" },
          },
        },
      },
      responses: [{ status: 200, description: "The timeline.", schema: lockTimelineSchema }],
      errors: ["invalid_request", "not_found"],
    },
    {
      path: "/api/v1/locks/changes",
      method: "get",
      operationId: "listLockChanges",
      tag: "Read",
      summary: "A lock's holder changes",
      description: `Exact changes of one lock or a pattern's locks in a range (default the last 6 hours), newest first, a page at a time, each with its ending (RELEASED, EXPIRED, TAKEN_OVER) and details (tokens, expiry, waiters before and after). ${CLUSTER_NOTE}`,
      query: {
        schema: lockChangesParamsSchema,
        examples: {
          recent: { summary: "The latest changes", value: { cluster: "redis-main", key: "lock:daily-job", limit: "50" } },
          nextPage: {
            summary: "The next page",
            value: { cluster: "redis-main", key: "lock:daily-job", from: hourAgo, to: now, cursor: `${nowMs - 600_000}_812` },
          },
        },
      },
      responses: [{ status: 200, description: "One page of changes.", schema: lockChangePageSchema }],
      errors: ["invalid_request"],
    },
  ];
}
