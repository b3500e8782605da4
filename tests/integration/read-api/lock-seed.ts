// Seeds locks the way the poller writes them (saveCycle: the same statements, the same JSON),
// in a cluster row of kind REDIS with its scope, for the locks read API tests.
import type { Db } from "@/lib/db/client";
import type { HoldChange, HoldState } from "@/lib/poller/hold-state";
import { saveCycle } from "@/lib/poller/resource-store";

export type LockPatternSeed = { match: string; layout: "token" | "redisson"; mustBeHeld: boolean };

export async function createLockCluster(db: Db, name: string, patterns: LockPatternSeed[]): Promise<number> {
  const { id } = await db.cluster.create({
    data: { name, kind: "REDIS", adminUrl: "redis://127.0.0.1:6379", pollIntervalMs: 5000, scope: { patterns } },
    select: { id: true },
  });
  const now = new Date();
  await db.pollerLease.create({ data: { clusterId: id, epoch: 1n, pollerId: "test", acquiredAt: now, heartbeatAt: now }, select: { clusterId: true } });
  return id;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export type LockSeed = {
  key: string;
  pattern: string;
  holder?: string | null;
  holderSinceMs?: number | null;
  ttlMs?: number | null;
  waiters?: string[];
  isSplit?: boolean;
  staleSinceMs?: number | null;
  lastError?: string | null;
  goneAtMs?: number | null;
  longestHoldMs?: number;
  nearExpiryCount?: number;
  details?: Record<string, unknown>;
};

export function holdState(seed: LockSeed, nowMs: number): HoldState {
  const holder = seed.holder === undefined ? "pod-a" : seed.holder;
  const ttlMs = seed.ttlMs === undefined ? 30_000 : seed.ttlMs;
  return {
    resourceKey: seed.key,
    pattern: seed.pattern,
    holder,
    holderToken: holder === null ? null : `${holder}:6f1c9a2e-token`,
    expiresAt: holder === null || ttlMs === null ? null : iso(nowMs + ttlMs - 5_000),
    ttlMs: holder === null ? null : ttlMs,
    waiters: seed.waiters ?? [],
    isSplit: seed.isSplit ?? false,
    details: seed.details ?? { layout: "token" },
    holderSince: holder === null ? null : iso(seed.holderSinceMs ?? nowMs - 60_000),
    lastObservedAt: iso(seed.staleSinceMs ? seed.staleSinceMs - 1_000 : nowMs - 1_000),
    staleSince: iso(seed.staleSinceMs ?? null),
    lastError: seed.lastError ?? null,
    lastErrorAt: iso(seed.staleSinceMs ?? null),
    goneAt: iso(seed.goneAtMs ?? null),
    lastChangeAt: null,
    stats: { tenureMaxTtlMs: ttlMs, nearExpiryCount: seed.nearExpiryCount ?? 0, longestHoldMs: seed.longestHoldMs ?? 0 },
  };
}

export type ChangeSeed = {
  key: string;
  kind: HoldChange["kind"];
  from: string | null;
  to: string | null;
  atMs: number;
  ending?: HoldChange["ending"];
  heldSinceMs?: number;
  expiresAtBeforeMs?: number;
};

export function holdChange(seed: ChangeSeed): HoldChange {
  return {
    resourceKey: seed.key,
    kind: seed.kind,
    cause: "CLIENT",
    ending: seed.ending ?? null,
    fromHolder: seed.from,
    toHolder: seed.to,
    oldSeenAt: iso(seed.atMs - 500),
    newSeenAt: iso(seed.atMs)!,
    isDuringGap: false,
    details: {
      tokenBefore: seed.from === null ? null : `${seed.from}:6f1c9a2e-token`,
      tokenAfter: seed.to === null ? null : `${seed.to}:6f1c9a2e-token`,
      expiresAtBefore: iso(seed.expiresAtBeforeMs ?? null),
      heldSince: iso(seed.heldSinceMs ?? null),
      acquiredAt: seed.to === null ? null : iso(seed.atMs - 250),
      waitersBefore: [],
      waitersAfter: [],
      hint: null,
    },
  };
}

/** One poll cycle's worth: the locks' states and the changes, as the poller saves them. */
export async function saveLocks(db: Db, clusterId: number, states: HoldState[], changes: HoldChange[], nowMs: number): Promise<void> {
  await saveCycle(db, {
    clusterId,
    epoch: 1n,
    states: { shape: "hold", resourceKind: "REDIS_LOCK", states },
    // Each seeded row keeps its own observation time.
    isFullSweep: false,
    changes,
    pollRun: {
      startedAt: new Date(nowMs - 50).toISOString(),
      finishedAt: new Date(nowMs).toISOString(),
      cycleMs: 5000,
      topicCount: states.length,
      requestCount: 1,
      errors: [],
      pollerId: "test",
    },
  });
}
