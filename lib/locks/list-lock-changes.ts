import "server-only";

import type { Db } from "@/lib/db/client";
import { type ChangeEntry, listChanges } from "@/lib/subscriptions/list-subscription-changes";

/** A lock's holder change: which lock, how the previous hold ended, and the tokens, expiry and waiters around it. */
export type LockChangeEntry = Omit<ChangeEntry, "partition"> & { key: string };

export type LockChangePage = {
  changes: LockChangeEntry[];
  /** Every change in the range, not only this page. */
  total: number;
  /** Pass as `cursor` for the next (older) page; null on the last. */
  nextCursor: string | null;
};

/** One lock's (or one pattern's) changes in a range, newest first, a page at a time. */
export async function listLockChanges(
  db: Db,
  input: { cluster: string; key: string | null; pattern: string | null; fromMs: number; toMs: number; limit?: number; cursor?: string },
): Promise<LockChangePage> {
  const { changes, total, nextCursor } = await listChanges(db, { kind: "lock", cluster: input.cluster, key: input.key, pattern: input.pattern }, input);
  return {
    changes: changes.map(({ cluster: _c, topic: _t, subscription: _s, partition: _p, resourceKey, ...change }) => ({ ...change, key: resourceKey })),
    total,
    nextCursor,
  };
}
