import "server-only";

import { z } from "zod";

import { MAX_COUNT_GROUPS, MAX_COUNT_INCREMENTS_PER_BODY, MAX_EVENT_ID_LENGTH, MAX_NAME_LENGTH, MAX_TOPIC_LENGTH } from "@/lib/ingest/limits";
import { storableText } from "@/lib/ingest/text-schema";
import { timestampSchema } from "@/lib/ingest/timestamp";

const MINUTE_MS = 60_000;

/** What a counts body's increments are: in "violations+counts" mode, those that saw nobody inside. */
export const COUNT_MODES = ["violations+counts"] as const;

const groupSchema = z.strictObject({
  subscription: storableText(MAX_NAME_LENGTH).nullable().optional(),
  topic: storableText(MAX_TOPIC_LENGTH).nullable().optional(),
  increments: z
    .number({ message: "must be a number" })
    .int({ message: "must be an integer" })
    .min(0, { message: "must be 0 or more" })
    .max(MAX_COUNT_INCREMENTS_PER_BODY, { message: `must be at most ${MAX_COUNT_INCREMENTS_PER_BODY}` }),
});

/**
 * POST /api/v1/exclusivity-counts: one client's increments of one minute, per subscription and
 * topic. The minute is the start of a UTC minute, within the retention (an older one could be
 * counted twice once its rows are deleted, so it is refused) and at most a day ahead; each
 * (subscription, topic) once.
 */
export function countsBodySchema(rules: { retentionDays: number }) {
  return z
    .strictObject({
      clientId: storableText(MAX_EVENT_ID_LENGTH),
      service: storableText(MAX_NAME_LENGTH),
      worker: storableText(MAX_NAME_LENGTH),
      mode: z.enum(COUNT_MODES, { message: `must be one of ${COUNT_MODES.map((m) => JSON.stringify(m)).join(", ")}` }),
      minute: timestampSchema.superRefine((ms, ctx) => {
        if (ms % MINUTE_MS !== 0) ctx.addIssue({ code: "custom", message: "must be the start of a minute (seconds and milliseconds 0)" });
        if (ms < Date.now() - rules.retentionDays * 86_400_000) {
          ctx.addIssue({ code: "custom", message: `is older than the ${rules.retentionDays}-day retention (BATON_RETENTION_DAYS)` });
        }
      }),
      counts: z
        .array(groupSchema)
        .min(1, { message: "must list at least one group" })
        .max(MAX_COUNT_GROUPS, { message: `must list at most ${MAX_COUNT_GROUPS} groups` }),
    })
    .superRefine((body, ctx) => {
      const seen = new Map<string, number>();
      let total = 0;
      body.counts.forEach((group, index) => {
        total += group.increments;
        const groupKey = `${group.subscription ?? ""}\u0000${group.topic ?? ""}`;
        const first = seen.get(groupKey);
        if (first === undefined) seen.set(groupKey, index);
        else ctx.addIssue({ code: "custom", path: ["counts", index], message: `repeats the subscription and topic of counts.${first}` });
      });
      if (total > MAX_COUNT_INCREMENTS_PER_BODY)
        ctx.addIssue({ code: "custom", path: ["counts"], message: `must count at most ${MAX_COUNT_INCREMENTS_PER_BODY} increments in all` });
    });
}

export type CountsInput = z.output<ReturnType<typeof countsBodySchema>>;
