import "server-only";

import { z } from "zod";

import {
  MAX_ATTRIBUTES_BYTES,
  MAX_ATTRIBUTES_DEPTH,
  MAX_EVENT_ID_LENGTH,
  MAX_INT4,
  MAX_KEY_LENGTH,
  MAX_LOCK_REF_LENGTH,
  MAX_NAME_LENGTH,
  MAX_OTHERS_INSIDE,
  MAX_TOPIC_LENGTH,
  MAX_TRACE_ID_LENGTH,
} from "@/lib/ingest/limits";
import { checkAttributes } from "@/lib/ingest/safe-json";
import { storableText } from "@/lib/ingest/text-schema";
import { timestampSchema } from "@/lib/ingest/timestamp";
import { requestComponents } from "@/lib/openapi/schema-registries";
import { parseLockRef } from "@/lib/violations/lock-ref";

// One counter event, for the API document. The ingest route does not validate events with zod
// (lib/ingest/validate-event.ts checks them in plain code, about six times faster on the hot
// path), so this schema restates its rules from the same limits; a unit test holds the two to
// the same verdicts, and runs the documented examples through the real validator.

const attributesSchema = z
  .unknown()
  .superRefine((value, ctx) => {
    const checked = checkAttributes(value);
    if (!checked.isValid) ctx.addIssue({ code: "custom", message: checked.message });
  })
  .meta({
    type: "object",
    description: `Free-form data of your own: a JSON object, at most ${MAX_ATTRIBUTES_BYTES} bytes as JSON and nested at most ${MAX_ATTRIBUTES_DEPTH} levels deep.`,
  });

const int4 = (min: number) => z.number().int().min(min).max(MAX_INT4);

export const counterEventSchema = z
  .strictObject({
    id: storableText(MAX_EVENT_ID_LENGTH).meta({
      description:
        "Your id for the event (a UUID is best): re-sending the event (same id, observedAt and counter) writes nothing while its day is kept; the same id at another observedAt is another event.",
    }),
    key: storableText(MAX_KEY_LENGTH).meta({ description: "The mutually exclusive thing (user, order, …)." }),
    counter: int4(0).meta({ description: "What the exclusivity counter held before this increment: above 0 means another worker was inside (a violation)." }),
    service: storableText(MAX_NAME_LENGTH),
    worker: storableText(MAX_NAME_LENGTH).meta({ description: "The worker (pod, consumer name) that entered the key." }),
    topic: storableText(MAX_TOPIC_LENGTH).nullish(),
    subscription: storableText(MAX_NAME_LENGTH).nullish(),
    partition: int4(-1).nullish().meta({ description: "-1 for a non-partitioned topic." }),
    traceId: storableText(MAX_TRACE_ID_LENGTH).nullish(),
    observedAt: timestampSchema.meta({
      description:
        "When the worker entered the key: an RFC 3339 date-time with an offset, or epoch milliseconds; at most one day ahead of Baton's clock and not older than the event retention (BATON_RETENTION_DAYS, default 30; for a violation BATON_VIOLATION_RETENTION_DAYS, default 90).",
    }),
    attributes: attributesSchema.nullish(),
    othersInside: z
      .array(z.strictObject({ worker: storableText(MAX_NAME_LENGTH), enteredAt: timestampSchema }))
      .max(MAX_OTHERS_INSIDE)
      .nullish()
      .meta({
        description: `On a violation: the workers inside the key when this one entered (at most ${MAX_OTHERS_INSIDE}, and at most \`counter\`), each with when it entered (not after observedAt). The exclusivity client fills it in.`,
      }),
  })
  .extend({
    lock: storableText(MAX_LOCK_REF_LENGTH)
      .refine((text) => parseLockRef(text) !== null, { message: 'must be "<cluster>/<lock key>", e.g. "redis-main/lock:daily-job"' })
      .nullish()
      .meta({
        description:
          "The lock the work ran under: a configured lock cluster's name, a slash, and the lock's key. The drill-down then shows that lock's holder changes (an expiry while held, a takeover) around each violation.",
      }),
  })
  .superRefine((event, ctx) => {
    const others = event.othersInside ?? [];
    if (others.length > event.counter)
      ctx.addIssue({
        code: "custom",
        path: ["othersInside"],
        message: `must list at most counter (${event.counter}) workers: each is one of the others inside`,
      });
    others.forEach((other, index) => {
      if (other.enteredAt > event.observedAt)
        ctx.addIssue({ code: "custom", path: ["othersInside", index, "enteredAt"], message: "must not be after observedAt" });
    });
  })
  .register(requestComponents, {
    id: "CounterEvent",
    description: "One increment of a service's mutual-exclusivity counter. Strings must not contain NUL or unpaired surrogates.",
  });

/** The JSON body of POST /api/v1/exclusivity-events: an array of events, or one event. */
export const counterEventsBodySchema = z
  .union([z.array(counterEventSchema), counterEventSchema])
  .register(requestComponents, { id: "CounterEvents", description: "An array of counter events, or one event object." });
