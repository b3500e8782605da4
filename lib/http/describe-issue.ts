import "server-only";

import type { z } from "zod";

export type FieldError = { field: string | null; message: string };

function hasOwn(value: unknown, key: string): boolean {
  return value !== null && typeof value === "object" && Object.hasOwn(value, key);
}

/**
 * The field at fault and a short message for one zod issue, phrased for the person who wrote
 * the client ("counter must be an integer"), not zod's internal wording. `input` is the item
 * that failed, used to tell a missing field from a wrong one.
 */
export function describeIssue(issue: z.core.$ZodIssue, input: unknown): FieldError {
  const field = issue.path.length > 0 ? issue.path.map(String).join(".") : null;
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0];
    return {
      field: key === undefined ? field : [...issue.path.map(String), key].join("."),
      message: "is not a known field (free-form data belongs in attributes)",
    };
  }
  if (issue.code === "invalid_type") {
    if (field === null) return { field, message: `must be a JSON ${issue.expected}` };
    const isMissing = issue.path.length === 1 && !hasOwn(input, String(issue.path[0]));
    const expected = issue.expected === "int" ? "integer" : issue.expected;
    return { field, message: isMissing ? "is required" : `must be ${article(expected)} ${expected}` };
  }
  if (field !== null && issue.path.length === 1 && !hasOwn(input, String(issue.path[0]))) return { field, message: "is required" };
  return { field, message: issue.message };
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? "an" : "a";
}
