import "server-only";

import { DescribeTableCommand } from "@aws-sdk/client-dynamodb";

import { openHoldCycles } from "@/lib/poller/hold-cycles";
import { holdResourceKindOf } from "@/lib/sources/hold-resource-kind";
import { defineSourceKind } from "@/lib/sources/source-kind";

import { createDynamodbClient, describeDynamodbError, describeTableLocation } from "./dynamodb-client";
import { type DynamodbClusterConfig, dynamodbClusterSchema } from "./dynamodb-config";
import { createDynamodbHoldSource } from "./index";

export type DynamodbSourceConfig = DynamodbClusterConfig & { pollIntervalMs: number };

/** DynamoDB lock tables: Amazon's dynamodb-lock-client (ownerName, leaseDuration, recordVersionNumber, isReleased). */
export const dynamodbKind = defineSourceKind<DynamodbSourceConfig>({
  kind: "dynamodb",
  label: "DynamoDB",
  clusterKind: "DYNAMODB",
  configSchema: dynamodbClusterSchema,
  // readIntervalMs is this kind's poll interval: each read is one full Scan of the table.
  resolveConfig: (entry, _setting, defaultPollIntervalMs) => {
    const config = entry as DynamodbClusterConfig;
    return { ...config, pollIntervalMs: config.readIntervalMs ?? defaultPollIntervalMs };
  },
  describe: (config) => ({
    endpoint: config.endpoint ?? `dynamodb.${config.region}.amazonaws.com`,
    scope: `${config.tableName} (key ${config.partitionKeyName}${config.sortKeyName ? `, sort key ${config.sortKeyName}` : ""}${config.mustBeHeld ? ", must be held" : ""})`,
    budget: `${config.requestsPerSecond} Scan requests/s of ${config.pageSize} items`,
    auth: config.profile ? `AWS profile ${config.profile}` : "AWS default credential chain",
  }),
  scopeOf: (config) => ({
    // What the lock pages and health rules read of every lock kind: the table is the one pattern.
    patterns: [{ match: config.tableName, layout: "dynamodb-lock-client", mustBeHeld: config.mustBeHeld }],
    region: config.region,
    tableName: config.tableName,
    partitionKeyName: config.partitionKeyName,
    sortKeyName: config.sortKeyName ?? null,
  }),
  stateShape: "hold",
  openCycles: (config, saved, log) =>
    openHoldCycles(createDynamodbHoldSource(config, { log }), saved.shape === "hold" ? saved.states : [], {
      resourceKind: holdResourceKindOf("DYNAMODB"),
      discoveryIntervalMs: config.discoveryIntervalMs,
      pollIntervalMs: config.pollIntervalMs,
      log,
    }),
  // DescribeTable: the table answers and is ACTIVE (ok), answers in another state (degraded), or not (down).
  async checkReachable(config, timeoutMs) {
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
  },
});
