import { z } from "zod";

import { ALERT_RULE_NAMES } from "@/lib/alerts/alert-config";

// GET /api/v1/alerts's query (the Alerts page reads with its defaults): unknown parameters refused, each
// error naming its parameter.

export const ALERT_STATES = ["firing", "pending", "resolved"] as const;
export const DEFAULT_ALERT_LIMIT = 100;
export const MAX_ALERT_LIMIT = 500;

export type AlertsQuery = {
  state: (typeof ALERT_STATES)[number] | null;
  rule: (typeof ALERT_RULE_NAMES)[number] | null;
  cluster: string | null;
  /** The topic or lock key. */
  resource: string | null;
  subscription: string | null;
  service: string | null;
  /** Alerts active at some time in [fromMs, toMs) (pending since before toMs, not resolved before fromMs); null: any time. */
  fromMs: number | null;
  toMs: number | null;
  limit: number;
};

const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1, { message: "must not be empty" })
    .max(max, { message: `must be at most ${max} characters` });

const instant = z
  .string()
  .transform((value, ctx) => {
    const ms = /^\d{1,15}$/.test(value) ? Number(value) : /^\d{4}-\d{2}-\d{2}T.+(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? Date.parse(value) : Number.NaN;
    if (Number.isFinite(ms)) return ms;
    ctx.addIssue({ code: "custom", message: "must be an RFC 3339 date-time with a time zone, or epoch milliseconds" });
    return z.NEVER;
  })
  .meta({ description: "RFC 3339 date-time with a time zone, or epoch milliseconds." });

export const alertsParamsSchema = z
  .strictObject({
    state: z.enum(ALERT_STATES, { message: `must be one of ${ALERT_STATES.join(", ")}` }).optional(),
    rule: z.enum(ALERT_RULE_NAMES, { message: `must be one of ${ALERT_RULE_NAMES.join(", ")}` }).optional(),
    cluster: text(63).optional(),
    resource: text(1_000).optional().meta({ description: "The topic or the lock key (label `resource`)." }),
    subscription: text(1_000).optional(),
    service: text(200).optional(),
    from: instant.optional(),
    to: instant.optional(),
    limit: z
      .string()
      .regex(/^\d+$/, { message: `must be a whole number from 1 to ${MAX_ALERT_LIMIT}` })
      .transform(Number)
      .refine((n) => n >= 1 && n <= MAX_ALERT_LIMIT, { message: `must be a whole number from 1 to ${MAX_ALERT_LIMIT}` })
      .optional()
      .meta({ description: `At most this many alerts (1-${MAX_ALERT_LIMIT}, default ${DEFAULT_ALERT_LIMIT}).` }),
  })
  .superRefine((value, ctx) => {
    if (value.from !== undefined && value.to !== undefined && value.from >= value.to)
      ctx.addIssue({ code: "custom", message: "must be after from", path: ["to"] });
  })
  .transform(
    (value): AlertsQuery => ({
      state: value.state ?? null,
      rule: value.rule ?? null,
      cluster: value.cluster ?? null,
      resource: value.resource ?? null,
      subscription: value.subscription ?? null,
      service: value.service ?? null,
      fromMs: value.from ?? null,
      toMs: value.to ?? null,
      limit: value.limit ?? DEFAULT_ALERT_LIMIT,
    }),
  );
