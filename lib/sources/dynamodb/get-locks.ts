import { type AttributeValue, BatchGetItemCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";

import type { RateLimiter } from "@/lib/poller/rate-limiter";

import { projectionOf, type ScanOptions, type ScanPage, type TableScan } from "./scan-table";

// A read of a few known locks by their keys: BatchGetItem, 100 keys a request (DynamoDB's
// limit), strongly consistent, each request one of the budget, unprocessed keys asked again.
// What a lock's expiry check reads: far cheaper than a Scan of the whole table.

export const BATCH_GET_MAX_KEYS = 100;

export type LockKey = { partitionKey: string; sortKey: string | null };

export async function getLocks(
  client: DynamoDBClient,
  limiter: Pick<RateLimiter, "run">,
  options: Omit<ScanOptions, "pageSize" | "segments">,
  keys: LockKey[],
): Promise<TableScan> {
  const projection = projectionOf(options);
  const pages: ScanPage[] = [];
  const startedMs = Date.now();
  let requests = 0;
  let capacityUnits = 0;
  const toKey = (key: LockKey): Record<string, AttributeValue> => ({
    [options.partitionKeyName]: { S: key.partitionKey },
    ...(options.sortKeyName !== undefined && key.sortKey !== null ? { [options.sortKeyName]: { S: key.sortKey } } : {}),
  });
  let pending: Record<string, AttributeValue>[] = keys.map(toKey);
  while (pending.length > 0) {
    const batch = pending.slice(0, BATCH_GET_MAX_KEYS);
    pending = pending.slice(BATCH_GET_MAX_KEYS);
    const answer = await limiter.run(() =>
      client.send(
        new BatchGetItemCommand({
          RequestItems: {
            [options.tableName]: { Keys: batch, ConsistentRead: true, ProjectionExpression: projection.expression, ExpressionAttributeNames: projection.names },
          },
          ReturnConsumedCapacity: "TOTAL",
        }),
      ),
    );
    requests += 1;
    capacityUnits += (answer.ConsumedCapacity ?? []).reduce((sum, consumed) => sum + (consumed.CapacityUnits ?? 0), 0);
    pages.push({ items: answer.Responses?.[options.tableName] ?? [], answeredMs: Date.now() });
    pending.push(...(answer.UnprocessedKeys?.[options.tableName]?.Keys ?? []));
  }
  return { pages, requests, capacityUnits, startedMs, finishedMs: Date.now() };
}
