import "server-only";

import { Prisma } from "@/lib/db/generated/client";
import { ApiError } from "@/lib/http/api-error";

/** A nullable Json column value: Prisma writes SQL NULL only for DbNull, not for null. */
export function toJsonColumn(value: Record<string, unknown> | null): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue);
}

/** A deployment cannot finish before it started. */
export function assertTimesInOrder(startedAtMs: number, finishedAtMs: number | null): void {
  if (finishedAtMs !== null && finishedAtMs < startedAtMs) {
    throw new ApiError(400, "invalid_request", "finishedAt must not be before startedAt.", {
      issues: [{ field: "finishedAt", message: "must not be before startedAt" }],
    });
  }
}
