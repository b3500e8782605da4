import { type AttributeValue, type DynamoDBClient, ScanCommand } from "@aws-sdk/client-dynamodb";

import type { RateLimiter } from "@/lib/poller/rate-limiter";

import { LOCK_ATTRIBUTES } from "./lock-item";

// One full read of a lock table: a parallel Scan of `segments` segments (DynamoDB's
// Segment/TotalSegments), each segment's pages one after the other following LastEvaluatedKey to
// its end, every page one request of the cluster's budget. Only the lock client's attributes are
// read. Consumed capacity is summed from each page's answer (ReturnConsumedCapacity TOTAL).

export type ScanPage = { items: Record<string, AttributeValue>[]; answeredMs: number };

export type TableScan = {
  pages: ScanPage[];
  /** Scan requests sent. */
  requests: number;
  /** Read capacity units DynamoDB reports the Scans consumed. */
  capacityUnits: number;
  startedMs: number;
  finishedMs: number;
};

export type ScanOptions = { tableName: string; partitionKeyName: string; sortKeyName?: string; pageSize: number; segments: number };

/** The ProjectionExpression and its names: every attribute through a placeholder (`data` is a reserved word). */
export function projectionOf(options: Pick<ScanOptions, "partitionKeyName" | "sortKeyName">): { expression: string; names: Record<string, string> } {
  const attributes = [options.partitionKeyName, ...(options.sortKeyName !== undefined ? [options.sortKeyName] : []), ...LOCK_ATTRIBUTES];
  const names = Object.fromEntries(attributes.map((name, i) => [`#a${i}`, name]));
  return { expression: Object.keys(names).join(", "), names };
}

export async function scanTable(client: DynamoDBClient, limiter: Pick<RateLimiter, "run">, options: ScanOptions): Promise<TableScan> {
  const projection = projectionOf(options);
  const pages: ScanPage[] = [];
  const startedMs = Date.now();
  let requests = 0;
  let capacityUnits = 0;
  async function scanSegment(segment: number): Promise<void> {
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const answer = await limiter.run(() =>
        client.send(
          new ScanCommand({
            TableName: options.tableName,
            Limit: options.pageSize,
            ExclusiveStartKey: startKey,
            ...(options.segments > 1 ? { Segment: segment, TotalSegments: options.segments } : {}),
            ProjectionExpression: projection.expression,
            ExpressionAttributeNames: projection.names,
            ReturnConsumedCapacity: "TOTAL",
          }),
        ),
      );
      requests += 1;
      capacityUnits += answer.ConsumedCapacity?.CapacityUnits ?? 0;
      pages.push({ items: answer.Items ?? [], answeredMs: Date.now() });
      startKey = answer.LastEvaluatedKey;
    } while (startKey !== undefined);
  }
  await Promise.all(Array.from({ length: options.segments }, (_, segment) => scanSegment(segment)));
  return { pages, requests, capacityUnits, startedMs, finishedMs: Date.now() };
}
