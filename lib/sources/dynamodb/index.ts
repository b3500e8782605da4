// Baton's DynamoDB source: who holds each lock of a dynamodb-lock-client table. The files, in
// the order a read uses them:
//   dynamodb-config.ts    the `kind: "dynamodb"` settings (zod) and their one-line errors
//   dynamodb-client.ts    the AWS SDK client (default credential chain) and error wording
//   scan-table.ts         one full read: paginated Scans within the request budget, capacity summed
//   lock-item.ts          an item -> the lock client's fields
//   version-clock.ts      when Baton first saw each lock's record version (the table keeps no times)
//   lock-observation.ts   an item + its version's age -> the shared HoldObservation
// There is no change signal: every read is a full Scan, and a lock first seen by a read is
// handed to the cycles as a hint so the next read includes it. No Next and no Prisma here.

import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";

import { createRateLimiter, type RateLimiter } from "@/lib/poller/rate-limiter";
import type { HoldHint, HoldObservation } from "@/lib/sources/hold-observation";
import type { HoldReadError, HoldSource, LockRef } from "@/lib/sources/hold-source";

import { createDynamodbClient, describeDynamodbError, describeTableLocation } from "./dynamodb-client";
import type { DynamodbClusterConfig } from "./dynamodb-config";
import { type LockItem, toLockItem } from "./lock-item";
import { toAbsentObservation, toHoldObservation } from "./lock-observation";
import { scanTable, type TableScan } from "./scan-table";
import { createVersionClock } from "./version-clock";

export { dynamodbClusterSchema, parseDynamodbClusterConfig, DynamodbConfigError } from "./dynamodb-config";
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

type ReadTable = { items: { item: LockItem; answeredMs: number }[]; errors: HoldReadError[]; scan: TableScan };

export function createDynamodbHoldSource(
  config: DynamodbClusterConfig,
  options: { log?: (line: string) => void; client?: DynamoDBClient; limiter?: RateLimiter } = {},
): DynamodbHoldSource {
  const client = options.client ?? createDynamodbClient(config);
  const limiter = options.limiter ?? createRateLimiter({ requestsPerSecond: config.requestsPerSecond, maxConcurrency: 1 });
  const clock = createVersionClock();
  const where = describeTableLocation(config);
  const pattern = config.tableName;
  let fresh: { read: ReadTable; atMs: number } | null = null;
  let lastCost: ReadCost | null = null;
  let onHints: ((hints: HoldHint[]) => void) | null = null;

  async function readTable(): Promise<ReadTable> {
    const scan = await scanTable(client, limiter, { tableName: config.tableName, partitionKeyName: config.partitionKeyName, sortKeyName: config.sortKeyName, pageSize: config.pageSize });
    const items: ReadTable["items"] = [];
    const errors: HoldReadError[] = [];
    for (const page of scan.pages) {
      for (const raw of page.items) {
        const item = toLockItem(raw, config);
        if (typeof item === "string") errors.push({ message: item });
        else items.push({ item, answeredMs: page.answeredMs });
      }
    }
    lastCost = { items: items.length, requests: scan.requests, capacityUnits: scan.capacityUnits, durationMs: scan.finishedMs - scan.startedMs };
    return { items, errors: errors.slice(0, 1), scan };
  }

  return {
    async discover() {
      let read: ReadTable;
      try {
        read = await readTable();
      } catch (error) {
        clock.reset();
        return { keys: [], errors: [{ message: describeDynamodbError(error, where) }], isComplete: false };
      }
      fresh = { read, atMs: Date.now() };
      options.log?.(`dynamodb ${config.name}: read ${where}: ${read.items.length} items in ${read.scan.requests} Scan pages, ${read.scan.capacityUnits} read capacity units`);
      return { keys: read.items.map(({ item }) => ({ key: item.resourceKey, pattern })), errors: read.errors, isComplete: read.errors.length === 0 };
    },

    async observe(refs: LockRef[]) {
      let read: ReadTable;
      if (fresh !== null && Date.now() - fresh.atMs <= SCAN_REUSE_MS) {
        read = fresh.read;
      } else {
        try {
          read = await readTable();
        } catch (error) {
          // Unread is not free: every lock goes stale, and every version's clock starts again.
          clock.reset();
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
        else unknown.push({ key: item.resourceKey, event: null, at: new Date(answeredMs).toISOString() });
      }
      clock.retain(new Set(read.items.map(({ item }) => item.resourceKey)));
      // A lock the cycles do not know yet: the next read includes it.
      if (unknown.length > 0) onHints?.(unknown);
      const endMs = read.scan.finishedMs;
      const observations = refs.map((ref) => seen.get(ref.key) ?? toAbsentObservation(ref.key, ref.pattern, endMs));
      return { observations, errors: read.errors };
    },

    patternOf: () => pattern,

    async watch(hints) {
      onHints = hints;
      return {
        mode: "none",
        stop: async () => {
          onHints = null;
        },
      };
    },

    takeRequestCount: () => limiter.takeRequestCount(),
    lastReadCost: () => lastCost,
    async close() {
      onHints = null;
      client.destroy();
    },
  };
}
