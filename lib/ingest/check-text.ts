import "server-only";

import { isStorableText } from "@/lib/ingest/safe-json";

/** The problem with a string field, or null when it is fine (or absent and optional). */
export function checkText(value: unknown, max: number, isRequired: boolean): string | null {
  if (value === undefined || value === null) return isRequired ? "is required" : null;
  if (typeof value !== "string") return "must be a string";
  if (value.length === 0) return "must not be empty";
  if (value.length > max) return `must be at most ${max} characters`;
  if (!isStorableText(value)) return "must not contain NUL characters or unpaired surrogates";
  return null;
}
