// Baton's DynamoDB source: who holds each lock of a dynamodb-lock-client table. The files, in
// the order a read uses them:
//   dynamodb-config.ts    the `kind: "dynamodb"` settings (zod) and their one-line errors
//   dynamodb-client.ts    the AWS SDK client (default credential chain) and error wording
//   scan-table.ts         one full read: paginated Scans within the request budget, capacity summed
//   get-locks.ts          a read of a few known locks: BatchGetItem (a lock's expiry check)
//   lock-item.ts          an item -> the lock client's fields
//   version-clock.ts      when Baton first saw each lock's record version (the table keeps no times)
//   lock-observation.ts   an item + its version's age -> the shared HoldObservation
// There is no change signal from the table. Its own signals: a lock first seen by a full read is
// handed to the cycles as a hint so that the next read includes it, and a held lock's expiry
// (its version's first sighting + its lease) is a hint at that moment, so that the lock is read
// then (by its key) rather than at the next full read. No Next and no Prisma here.

import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";

import { createRateLimiter, type RateLimiter } from "@/lib/poller/rate-limiter";
import type { HoldHint, HoldObservation } from "@/lib/poller/contract/hold-observation";
import type { HoldReadError, HoldSource, LockRef } from "@/lib/poller/contract/hold-source";

import { createDynamodbClient, describeDynamodbError, describeTableLocation } from "./dynamodb-client";
import type { DynamodbClusterConfig } from "./dynamodb-config";
import { getLocks, type LockKey } from "./get-locks";
import { type LockItem, toLockItem } from "./lock-item";
import { toAbsentObservation, toHoldObservation } from "./lock-observation";
import { scanTable, type TableScan } from "./scan-table";
import { createVersionClock } from "./version-clock";

export { dynamodbClusterSchema, parseDynamodbClusterConfig } from "./dynamodb-config";
export type { DynamodbClusterConfig, DynamodbClusterInput } from "./dynamodb-config";
export type { DynamodbLockDetails } from "./lock-observation";

/** A discovery's Scan serves the read that follows it in the same cycle when at most this old. */
const SCAN_REUSE_MS = 1_000;

/** What the last full read cost. */
export type ReadCost = { items: number; requests: number; capacityUnits: number; durationMs: number };

export type DynamodbHoldSource = HoldSource & {
  /** The cost of the last full read of the table, or null before the first. */
  lastReadCost(): ReadCost | null;
};

type ReadTable = { items: { item: LockItem; answeredMs: number }[]; errors: HoldReadError[]; scan: TableScan; isFull: boolean };

export function createDynamodbHoldSource(
  config: DynamodbClusterConfig,
  options: { log?: (line: string) => void; client?: DynamoDBClient; limiter?: RateLimiter } = {},
): DynamodbHoldSource {
  const client = options.client ?? createDynamodbClient(config);
  // One request in flight per Scan segment.
  const limiter = options.limiter ?? createRateLimiter({ requestsPerSecond: config.requestsPerSecond, maxConcurrency: config.segments });
  const clock = createVersionClock();
  const where = describeTableLocation(config);
  const pattern = config.tableName;
  let fresh: { read: ReadTable; atMs: number } | null = null;
  let lastCost: ReadCost | null = null;
  let onHints: ((hints: HoldHint[]) => void) | null = null;
  /** The keys of every lock the last full read found: a read of fewer known locks gets them by key. */
  let located = new Map<string, LockKey>();
  const expiryTimers = new Map<string, NodeJS.Timeout>();

  function clearExpiryTimers(): void {
    for (const timer of expiryTimers.values()) clearTimeout(timer);
    expiryTimers.clear();
  }

  /** Asks the cycles to read a held lock when its lease would run out without a new version. */
  function scheduleExpiryCheck(observation: HoldObservation): void {
    clearTimeout(expiryTimers.get(observation.resourceKey));
    expiryTimers.delete(observation.resourceKey);
    if (observation.holder === null || observation.expiresAt === null || onHints === null) return;
    const at = Date.parse(observation.expiresAt);
    const timer = setTimeout(
      () => {
        expiryTimers.delete(observation.resourceKey);
        // Whether the lease ran out is for the read to tell: the holder may have renewed it.
        onHints?.([{ key: observation.resourceKey, kind: "change", event: null, at: new Date().toISOString() }]);
      },
      Math.max(0, at - Date.now()) + 1,
    );
    timer.unref();
    expiryTimers.set(observation.resourceKey, timer);
  }

  async function readTable(refs?: LockRef[]): Promise<ReadTable> {
    const keys = { tableName: config.tableName, partitionKeyName: config.partitionKeyName, sortKeyName: config.sortKeyName };
    const byKey = refs?.map((ref) => located.get(ref.key));
    const isTargeted = byKey !== undefined && byKey.length < located.size && byKey.every((key) => key !== undefined);
    const scan = isTargeted
      ? await getLocks(client, limiter, keys, byKey as LockKey[])
      : await scanTable(client, limiter, { ...keys, pageSize: config.pageSize, segments: config.segments });
    const items: ReadTable["items"] = [];
    const errors: HoldReadError[] = [];
    for (const page of scan.pages) {
      for (const raw of page.items) {
        const item = toLockItem(raw, config);
        if (typeof item === "string") errors.push({ message: item });
        else items.push({ item, answeredMs: page.answeredMs });
      }
    }
    if (!isTargeted) {
      lastCost = { items: items.length, requests: scan.requests, capacityUnits: scan.capacityUnits, durationMs: scan.finishedMs - scan.startedMs };
      located = new Map(items.map(({ item }) => [item.resourceKey, { partitionKey: item.partitionKey, sortKey: item.sortKey }]));
    }
    return { items, errors: errors.slice(0, 1), scan, isFull: !isTargeted };
  }

  return {
    async discover() {
      let read: ReadTable;
      try {
        read = await readTable();
      } catch (error) {
        clock.reset();
        clearExpiryTimers();
        return { keys: [], errors: [{ message: describeDynamodbError(error, where) }], isComplete: false };
      }
      fresh = { read, atMs: Date.now() };
      options.log?.(
        `dynamodb ${config.name}: read ${where}: ${read.items.length} items in ${read.scan.requests} Scan pages, ${read.scan.capacityUnits} read capacity units`,
      );
      return { keys: read.items.map(({ item }) => ({ key: item.resourceKey, pattern })), errors: read.errors, isComplete: read.errors.length === 0 };
    },

    async observe(refs: LockRef[]) {
      let read: ReadTable;
      if (fresh !== null && Date.now() - fresh.atMs <= SCAN_REUSE_MS) {
        read = fresh.read;
      } else {
        try {
          read = await readTable(refs);
        } catch (error) {
          // Unread is not free: every lock goes stale, and every version's clock starts again.
          clock.reset();
          clearExpiryTimers();
          const message = describeDynamodbError(error, where);
          return { observations: [], errors: refs.map((ref) => ({ key: ref.key, message })) };
        }
      }
      fresh = null;
      const asked = new Set(refs.map((ref) => ref.key));
      const seen = new Map<string, HoldObservation>();
      const unknown: HoldHint[] = [];
      for (const { item, answeredMs } of read.items) {
        const firstSeenMs = item.recordVersionNumber === null ? answeredMs : clock.firstSeen(item.resourceKey, item.recordVersionNumber, answeredMs);
        if (asked.has(item.resourceKey)) seen.set(item.resourceKey, toHoldObservation({ item, pattern, firstSeenMs, observedMs: answeredMs }));
        else unknown.push({ key: item.resourceKey, kind: "change", event: null, at: new Date(answeredMs).toISOString() });
      }
      // Only a full read sees every lock: one of a few locks says nothing of the others.
      if (read.isFull) clock.retain(new Set(read.items.map(({ item }) => item.resourceKey)));
      // A lock the cycles do not know yet: the next read includes it.
      if (unknown.length > 0) onHints?.(unknown);
      const endMs = read.scan.finishedMs;
      const observations = refs.map((ref) => seen.get(ref.key) ?? toAbsentObservation(ref.key, ref.pattern, endMs));
      for (const observation of observations) scheduleExpiryCheck(observation);
      return { observations, errors: read.errors };
    },

    patternOf: () => pattern,

    async watch(hints) {
      onHints = hints;
      return {
        // Hints of the source's own making: new locks found by full reads, and lease ends.
        mode: "lease timers",
        stop: async () => {
          onHints = null;
          clearExpiryTimers();
        },
      };
    },

    takeRequestCount: () => limiter.takeRequestCount(),
    lastReadCost: () => lastCost,
    async close() {
      onHints = null;
      clearExpiryTimers();
      client.destroy();
    },
  };
}
