import "server-only";

import { z } from "zod";

import { isStorableText } from "@/lib/ingest/safe-json";

/** A non-empty string of at most `max` characters that PostgreSQL can store. */
export function storableText(max: number) {
  return z
    .string()
    .min(1, { message: "must not be empty" })
    .max(max, { message: `must be at most ${max} characters` })
    .refine(isStorableText, { message: "must not contain NUL characters or unpaired surrogates" });
}
