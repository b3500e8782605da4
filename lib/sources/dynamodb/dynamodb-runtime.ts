import "server-only";

import { DescribeTableCommand } from "@aws-sdk/client-dynamodb";

import { openHoldCycles } from "@/lib/poller/hold-cycles";
import type { CycleStates, SourceCycles } from "@/lib/poller/source-cycles";

import { createDynamodbClient, describeDynamodbError, describeTableLocation } from "./dynamodb-client";
import type { DynamodbSourceConfig } from "./dynamodb-config";
import { dynamodbDescription } from "./dynamodb-description";
import { createDynamodbHoldSource } from "./index";

// What the DynamoDB kind does with the AWS SDK: dynamodb-kind.ts loads this module when a
// DynamoDB cluster is polled or checked.

export function openDynamodbCycles(config: DynamodbSourceConfig, saved: CycleStates, log: (line: string) => void): Promise<SourceCycles> {
  return openHoldCycles(createDynamodbHoldSource(config, { log }), saved.shape === "hold" ? saved.states : [], {
    resourceKind: dynamodbDescription.resourceKind,
    predictNextHolder: dynamodbDescription.predictNextHolder,
    discoveryIntervalMs: config.discoveryIntervalMs,
    pollIntervalMs: config.pollIntervalMs,
    log,
  });
}

/** DescribeTable: the table answers and is ACTIVE (ok), answers in another state (degraded), or not (down). */
export async function checkDynamodbReachable(
  config: DynamodbSourceConfig,
  timeoutMs: number,
): Promise<{ status: "ok" | "degraded" | "down"; reason: string | null }> {
  const client = createDynamodbClient({ ...config, requestTimeoutMs: timeoutMs });
  try {
    const answer = await client.send(new DescribeTableCommand({ TableName: config.tableName }));
    const status = answer.Table?.TableStatus ?? "UNKNOWN";
    return status === "ACTIVE" ? { status: "ok", reason: null } : { status: "degraded", reason: `table ${config.tableName} is ${status}` };
  } catch (error) {
    return { status: "down", reason: describeDynamodbError(error, describeTableLocation(config)) };
  } finally {
    client.destroy();
  }
}
