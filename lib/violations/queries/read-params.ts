import "server-only";

import { z } from "zod";

import { ApiError } from "@/lib/http/api-error";
import { TOP_LISTS, type TopList } from "@/lib/violations/queries/get-top-violations";
import { MAX_CAUSE_PAGE } from "@/lib/violations/queries/get-violation-causes";
import { VIOLATION_CAUSES } from "@/lib/violations/cause-words";
import { DEFAULT_TIME_ZONE, isValidTimeZone } from "@/lib/violations/time-zone";
import { isRangePreset, MAX_RANGE_MS, RANGE_PRESETS } from "@/lib/timeline/time-range";
import { DEFAULT_VIOLATIONS_PRESET } from "@/lib/violations/view-params";

// The violations read API's query parameters (docs/http-api.md, "Violations read API"), parsed with zod:
// unknown parameters are refused (a misspelt filter must not silently widen the answer), and
// every error is a 400 that names the parameter. Where a refinement or transform hides a rule
// from JSON Schema, `.meta()` states it for the API document (lib/openapi).

const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1, { message: "must not be empty" })
    .max(max, { message: `must be at most ${max} characters` });

/** RFC 3339 with a zone, or epoch milliseconds. */
const instant = z.string().transform((value, ctx) => {
  const ms = /^\d{1,15}$/.test(value) ? Number(value) : /^\d{4}-\d{2}-\d{2}T.+(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isFinite(ms)) return ms;
  ctx.addIssue({ code: "custom", message: "must be an RFC 3339 date-time with a time zone, or epoch milliseconds" });
  return z.NEVER;
});

const rangeFields = {
  from: instant.optional().meta({
    description: `The start: an RFC 3339 date-time with a time zone, or epoch milliseconds. Before \`to\`, at most ${MAX_RANGE_MS / 86_400_000} days before it; not with \`range\`.`,
  }),
  to: instant.optional().meta({ description: "The end (default now): an RFC 3339 date-time with a time zone, or epoch milliseconds; not with `range`." }),
  range: z
    .string()
    .refine(isRangePreset, { message: `must be one of ${Object.keys(RANGE_PRESETS).join(", ")}` })
    .optional()
    .meta({ enum: Object.keys(RANGE_PRESETS), description: `A preset ending now (default ${DEFAULT_VIOLATIONS_PRESET}); not with \`from\` or \`to\`.` }),
};

const limitField = (max: number, fallback: number) =>
  z.coerce
    .number({ message: "must be a number" })
    .int({ message: "must be an integer" })
    .min(1, { message: "must be at least 1" })
    .max(max, { message: `must be at most ${max}` })
    .default(fallback);

const timeZoneField = z
  .string()
  .refine(isValidTimeZone, { message: "must be an IANA time zone, e.g. Europe/Berlin or UTC" })
  .default(DEFAULT_TIME_ZONE)
  .meta({ description: "An IANA time zone (Europe/Berlin, UTC) that buckets align to." });

type RangeInput = { from?: number; to?: number; range?: string };

/** from/to, or a preset ending now (default 24 h); from before to, at most 31 days apart. */
function checkRange(value: RangeInput, ctx: z.RefinementCtx): void {
  if (value.range !== undefined && (value.from !== undefined || value.to !== undefined)) {
    ctx.addIssue({ code: "custom", path: ["range"], message: "cannot be combined with from or to" });
    return;
  }
  const { fromMs, toMs } = resolveParamsRange(value, Date.now());
  if (fromMs >= toMs) ctx.addIssue({ code: "custom", path: ["from"], message: "must be before to" });
  else if (toMs - fromMs > MAX_RANGE_MS)
    ctx.addIssue({ code: "custom", path: ["from"], message: `must be at most ${MAX_RANGE_MS / 86_400_000} days before to` });
}

function resolveParamsRange(value: RangeInput, nowMs: number): { fromMs: number; toMs: number } {
  const toMs = value.to ?? nowMs;
  const preset = value.range !== undefined && isRangePreset(value.range) ? value.range : DEFAULT_VIOLATIONS_PRESET;
  return { fromMs: value.from ?? toMs - RANGE_PRESETS[preset], toMs };
}

function withRange<T extends RangeInput>(value: T): Omit<T, "from" | "to" | "range"> & { fromMs: number; toMs: number } {
  const { from: _from, to: _to, range: _range, ...rest } = value;
  return { ...rest, ...resolveParamsRange(value, Date.now()) };
}

const filterFields = {
  service: text(200).optional(),
  subscription: text(200).optional(),
  environment: text(200).optional(),
};

const nullable = <T>(value: T | undefined): T | null => value ?? null;

export const timelineParamsSchema = z
  .strictObject({ ...rangeFields, ...filterFields, tz: timeZoneField })
  .superRefine(checkRange)
  .transform(withRange)
  .transform((v) => ({
    fromMs: v.fromMs,
    toMs: v.toMs,
    timeZone: v.tz,
    service: nullable(v.service),
    subscription: nullable(v.subscription),
    environment: nullable(v.environment),
  }));

const listsField = z
  .string()
  .transform((value, ctx) => {
    const lists = value
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part !== "");
    const unknown = lists.find((list) => !(TOP_LISTS as readonly string[]).includes(list));
    if (unknown === undefined && lists.length > 0) return lists as TopList[];
    ctx.addIssue({ code: "custom", message: `must be a comma-separated list of ${TOP_LISTS.join(", ")}` });
    return z.NEVER;
  })
  .default([...TOP_LISTS])
  .meta({ description: `A comma-separated list of ${TOP_LISTS.join(", ")} (default all): the lists to answer; the others are null.` });

export const topParamsSchema = z
  .strictObject({
    ...rangeFields,
    ...filterFields,
    limit: limitField(100, 10),
    ranking: z.enum(["violations", "outside"], { message: 'must be "violations" or "outside"' }).default("violations"),
    lists: listsField,
  })
  .superRefine(checkRange)
  .transform(withRange)
  .transform((v) => ({
    fromMs: v.fromMs,
    toMs: v.toMs,
    timeZone: DEFAULT_TIME_ZONE,
    service: nullable(v.service),
    subscription: nullable(v.subscription),
    environment: nullable(v.environment),
    limit: v.limit,
    ranking: v.ranking,
    lists: v.lists,
  }));

export const keyParamsSchema = z
  .strictObject({ key: text(512), ...rangeFields })
  .superRefine(checkRange)
  .transform(withRange);

export const eventParamsSchema = z
  .strictObject({
    id: text(200).meta({ description: "The id the event was posted with." }),
    at: instant.optional().meta({
      description:
        "The event's observedAt (an RFC 3339 date-time with a time zone, or epoch milliseconds), as the API returns it: the event is then looked up in the one partition of its hour. Without it, a violation is found through its index but any other event by a scan of every stored hour.",
    }),
  })
  .transform((value) => ({ id: value.id, atMs: value.at ?? null }));

/** A read that takes no parameters refuses any, as the other reads do. */
export const noParamsSchema = z.strictObject({});

export const leaderChangeParamsSchema = z
  .strictObject({ ...rangeFields, subscription: text(200).optional(), tz: timeZoneField })
  .superRefine(checkRange)
  .transform(withRange)
  .transform((v) => ({ fromMs: v.fromMs, toMs: v.toMs, timeZone: v.tz, subscription: nullable(v.subscription) }));

export const deploymentParamsSchema = z
  .strictObject({ ...rangeFields, service: text(200).optional(), environment: text(200).optional(), limit: limitField(500, 100) })
  .superRefine(checkRange)
  .transform(withRange)
  .transform((v) => ({ fromMs: v.fromMs, toMs: v.toMs, service: nullable(v.service), environment: nullable(v.environment), limit: v.limit }));

function describeIssue(issue: z.core.$ZodIssue, input: Record<string, string>): { field: string | null; message: string } {
  if (issue.code === "unrecognized_keys") return { field: issue.keys[0] ?? null, message: "is not a known parameter" };
  const field = issue.path.length > 0 ? issue.path.map(String).join(".") : null;
  if (field !== null && issue.path.length === 1 && !Object.hasOwn(input, field)) return { field, message: "is required" };
  return { field, message: issue.message };
}

/**
 * A request's query parameters through a schema, or a 400 `invalid_request` naming the first
 * parameter at fault (every issue in details.issues). A parameter given twice is refused.
 */
export function parseQuery<Schema extends z.ZodType>(schema: Schema, url: string): z.output<Schema> {
  const input: Record<string, string> = {};
  for (const [key, value] of new URL(url).searchParams) {
    if (Object.hasOwn(input, key)) {
      throw new ApiError(400, "invalid_request", `The query is invalid: ${key} is given more than once.`, {
        issues: [{ field: key, message: "is given more than once" }],
      });
    }
    input[key] = value;
  }
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => describeIssue(issue, input));
  const first = issues[0]!;
  throw new ApiError(400, "invalid_request", `The query is invalid: ${first.field ?? "it"} ${first.message}.`, { issues });
}

export const causeParamsSchema = z
  .strictObject({
    ...rangeFields,
    service: text(200).optional(),
    subscription: text(200).optional(),
    cause: z
      .enum(VIOLATION_CAUSES, { message: `must be one of ${VIOLATION_CAUSES.join(", ")}` })
      .optional()
      .meta({ description: "Only the violations of this cause (docs/http-api.md, Violation causes)." }),
    limit: limitField(MAX_CAUSE_PAGE, 1_000).meta({ description: `The latest this many violations of the range make the page (at most ${MAX_CAUSE_PAGE}).` }),
  })
  .superRefine(checkRange)
  .transform(withRange)
  .transform((v) => ({
    fromMs: v.fromMs,
    toMs: v.toMs,
    service: nullable(v.service),
    subscription: nullable(v.subscription),
    cause: nullable(v.cause),
    limit: v.limit,
  }));
