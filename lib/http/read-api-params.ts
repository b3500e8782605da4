import "server-only";

import { z } from "zod";

import { ApiError } from "@/lib/http/api-error";
import { LOCK_SOURCE_KINDS } from "@/lib/board/lock-types";
import type { LeadersQuery } from "@/lib/subscriptions/list-leaders";
import type { LocksQuery } from "@/lib/locks/list-locks";
import { DEFAULT_PRESET, MAX_RANGE_MS, RANGE_PRESETS } from "@/lib/timeline/time-range";

// The read API's query parameters (GET /api/v1/leaders, /subscriptions/..., /consumers/...):
// parsed with zod, unknown parameters refused (a typo must not silently widen a filter), and
// every error a 400 that names the parameter. Where a refinement or transform hides a rule
// from JSON Schema, `.meta()` states it for the API document (lib/openapi).

const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1, { message: "must not be empty" })
    .max(max, { message: `must be at most ${max} characters` });

const booleanParam = z.enum(["true", "false"], { message: 'must be "true" or "false"' }).transform((value) => value === "true");

/** RFC 3339 date-time (with a zone) or epoch milliseconds. */
const instant = z.string().transform((value, ctx) => {
  const ms = /^\d{1,15}$/.test(value) ? Number(value) : /^\d{4}-\d{2}-\d{2}T.+(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isFinite(ms)) return ms;
  ctx.addIssue({ code: "custom", message: "must be an RFC 3339 date-time with a time zone, or epoch milliseconds" });
  return z.NEVER;
});

const topicName = text(1_000).regex(/^(persistent|non-persistent):\/\/[^/]+\/[^/]+\/.+$/, {
  message: "must be a full topic name, persistent://tenant/namespace/topic",
});

export const leadersParamsSchema = z
  .strictObject({
    cluster: text(63).optional(),
    tenant: text(255).optional(),
    namespace: text(511)
      .regex(/^[^/]+\/[^/]+$/, { message: "must be tenant/namespace" })
      .optional(),
    topic: topicName.optional(),
    subscription: text(1_000).optional(),
    q: z.string().max(200, { message: "must be at most 200 characters" }).optional(),
    includeGone: booleanParam.optional(),
  })
  .transform(
    (value): LeadersQuery => ({
      cluster: value.cluster ?? null,
      tenant: value.tenant ?? null,
      namespace: value.namespace ?? null,
      topic: value.topic ?? null,
      subscription: value.subscription ?? null,
      q: value.q ?? "",
      includeGone: value.includeGone ?? false,
    }),
  );

/** A cluster parameter must name a configured cluster: a typo must not answer "nothing there". */
export function assertConfiguredCluster(clusterNames: string[], cluster: string | null): void {
  if (cluster === null || clusterNames.includes(cluster)) return;
  const message = `names no configured cluster (configured: ${clusterNames.join(", ") || "none"})`;
  throw new ApiError(400, "invalid_request", `The query is invalid: cluster ${message}.`, { issues: [{ field: "cluster", message }] });
}

const subscriptionFields = { cluster: text(63), topic: topicName, subscription: text(1_000) };

const rangeFields = {
  from: instant.optional().meta({
    description: `The start (default ${DEFAULT_PRESET} before \`to\`): an RFC 3339 date-time with a time zone, or epoch milliseconds. Before \`to\`, at most ${MAX_RANGE_MS / 86_400_000} days before it.`,
  }),
  to: instant.optional().meta({ description: "The end (default now): an RFC 3339 date-time with a time zone, or epoch milliseconds." }),
};

/** from/to defaulting to the last DEFAULT_PRESET; from before to, at most MAX_RANGE_MS apart. */
function checkRange(value: { from?: number; to?: number }, ctx: z.RefinementCtx, nowMs: () => number): void {
  const to = value.to ?? nowMs();
  const from = value.from ?? to - RANGE_PRESETS[DEFAULT_PRESET];
  if (from >= to) ctx.addIssue({ code: "custom", path: ["from"], message: "must be before to" });
  else if (to - from > MAX_RANGE_MS) ctx.addIssue({ code: "custom", path: ["from"], message: `must be at most ${MAX_RANGE_MS / 86_400_000} days before to` });
}

function withRange<T extends { from?: number; to?: number }>(value: T, nowMs: number): Omit<T, "from" | "to"> & { fromMs: number; toMs: number } {
  const { from, to, ...rest } = value;
  const toMs = to ?? nowMs;
  return { ...rest, fromMs: from ?? toMs - RANGE_PRESETS[DEFAULT_PRESET], toMs };
}

export const timelineParamsSchema = z
  .strictObject({ ...subscriptionFields, ...rangeFields, deployments: z.enum(["matched", "all"], { message: 'must be "matched" or "all"' }).optional() })
  .superRefine((value, ctx) => checkRange(value, ctx, Date.now))
  .transform((value) => withRange(value, Date.now()));

const cursor = z
  .string()
  .regex(/^\d{1,15}_\d{1,19}$/, { message: "must be a cursor from a previous answer's nextCursor" })
  .meta({ description: "The previous page's `nextCursor`: the next (older) page." });
const limit = z.coerce
  .number({ message: "must be a number" })
  .int({ message: "must be an integer" })
  .min(1, { message: "must be at least 1" })
  .max(1_000, { message: "must be at most 1000" });

export const changesParamsSchema = z
  .strictObject({ ...subscriptionFields, ...rangeFields, limit: limit.optional(), cursor: cursor.optional() })
  .superRefine((value, ctx) => checkRange(value, ctx, Date.now))
  .transform((value) => withRange(value, Date.now()));

export const consumerParamsSchema = z
  .strictObject({ name: text(1_000), cluster: text(63).optional(), ...rangeFields, limit: limit.optional(), cursor: cursor.optional() })
  .superRefine((value, ctx) => checkRange(value, ctx, Date.now))
  .transform((value) => withRange(value, Date.now()));

// Locks (GET /api/v1/locks, /locks/timeline, /locks/changes).

const lockKey = text(1_000).meta({ description: "A lock's key (or path), exactly." });
const lockPattern = text(1_000).meta({ description: "A configured pattern (e.g. `lock:*`), exactly: every lock it found." });

export const locksParamsSchema = z
  .strictObject({
    cluster: text(63).optional(),
    kind: z.enum(LOCK_SOURCE_KINDS, { message: `must be one of ${LOCK_SOURCE_KINDS.join(", ")}` }).optional(),
    pattern: lockPattern.optional(),
    q: z
      .string()
      .max(200, { message: "must be at most 200 characters" })
      .optional()
      .meta({ description: "A substring of the key or the holder (case-insensitive)." }),
    includeGone: booleanParam.optional(),
  })
  .transform(
    (value): LocksQuery => ({
      cluster: value.cluster ?? null,
      kind: value.kind ?? null,
      pattern: value.pattern ?? null,
      key: null,
      q: value.q ?? "",
      includeGone: value.includeGone ?? false,
    }),
  );

/** Exactly one of key and pattern. */
function checkLockRef(value: { key?: string; pattern?: string }, ctx: z.RefinementCtx): void {
  if (value.key === undefined && value.pattern === undefined) ctx.addIssue({ code: "custom", path: ["key"], message: "is required (or pattern)" });
  else if (value.key !== undefined && value.pattern !== undefined) ctx.addIssue({ code: "custom", path: ["pattern"], message: "must not be given with key" });
}

const lockRefFields = { cluster: text(63), key: lockKey.optional(), pattern: lockPattern.optional() };

/** key and pattern as the read models take them (null when absent). */
function toLockRef<T extends { key?: string; pattern?: string }>(value: T): Omit<T, "key" | "pattern"> & { key: string | null; pattern: string | null } {
  const { key, pattern, ...rest } = value;
  return { ...rest, key: key ?? null, pattern: pattern ?? null };
}

export const lockTimelineParamsSchema = z
  .strictObject({ ...lockRefFields, ...rangeFields, deployments: z.enum(["matched", "all"], { message: 'must be "matched" or "all"' }).optional() })
  .superRefine((value, ctx) => {
    checkLockRef(value, ctx);
    checkRange(value, ctx, Date.now);
  })
  .transform((value) => toLockRef(withRange(value, Date.now())));

export const lockChangesParamsSchema = z
  .strictObject({ ...lockRefFields, ...rangeFields, limit: limit.optional(), cursor: cursor.optional() })
  .superRefine((value, ctx) => {
    checkLockRef(value, ctx);
    checkRange(value, ctx, Date.now);
  })
  .transform((value) => toLockRef(withRange(value, Date.now())));

function describeIssue(issue: z.core.$ZodIssue, input: Record<string, string>): { field: string | null; message: string } {
  if (issue.code === "unrecognized_keys") return { field: issue.keys[0] ?? null, message: "is not a known parameter" };
  const field = issue.path.length > 0 ? issue.path.map(String).join(".") : null;
  if (field !== null && issue.path.length === 1 && issue.code !== "custom" && !Object.hasOwn(input, field)) return { field, message: "is required" };
  return { field, message: issue.message };
}

/**
 * Parses a request's query parameters (plus path parameters, merged in) with a schema, or
 * throws a 400 naming the first parameter at fault and listing them all in details.
 */
export function parseReadParams<Schema extends z.ZodType>(schema: Schema, url: string, extra: Record<string, string> = {}): z.output<Schema> {
  const params = new URL(url).searchParams;
  const input: Record<string, string> = {};
  for (const [key, value] of params) {
    if (Object.hasOwn(input, key))
      throw new ApiError(400, "invalid_request", `The query is invalid: ${key} is given more than once.`, {
        issues: [{ field: key, message: "is given more than once" }],
      });
    input[key] = value;
  }
  Object.assign(input, extra);
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => describeIssue(issue, input));
  const first = issues[0]!;
  throw new ApiError(400, "invalid_request", `The query is invalid: ${first.field ?? "it"} ${first.message}.`, { issues });
}

// Grafana annotations (GET /api/v1/annotations).

export const ANNOTATION_KINDS = ["changes", "deployments"] as const;

export const annotationsParamsSchema = z
  .strictObject({
    kind: z
      .enum(ANNOTATION_KINDS, { message: `must be one of ${ANNOTATION_KINDS.join(", ")}` })
      .meta({ description: "`changes`: holder changes (one point each); `deployments`: deployments (a region from start to finish)." }),
    cluster: text(63).optional().meta({ description: "kind=changes only: one configured cluster (default every configured cluster)." }),
    service: text(200).optional().meta({ description: "kind=deployments only: one service (default every service)." }),
    ...rangeFields,
    limit: limit.optional().meta({ description: "At most this many annotations, the newest (default and maximum 1000)." }),
  })
  .superRefine((value, ctx) => {
    if (value.kind === "changes" && value.service !== undefined)
      ctx.addIssue({ code: "custom", path: ["service"], message: "applies to kind=deployments only" });
    if (value.kind === "deployments" && value.cluster !== undefined)
      ctx.addIssue({ code: "custom", path: ["cluster"], message: "applies to kind=changes only" });
    checkRange(value, ctx, Date.now);
  })
  .transform((value) => {
    const { cluster, service, limit: max, ...rest } = withRange(value, Date.now());
    return { ...rest, cluster: cluster ?? null, service: service ?? null, limit: max ?? 1_000 };
  });
