import "server-only";

import { defineSourceKind } from "@/lib/poller/contract/source-kind";
import { identityOf } from "@/lib/sources/kind-identity";

import { type DynamodbClusterConfig, dynamodbClusterSchema, type DynamodbSourceConfig } from "./dynamodb-config";
import { dynamodbDescription } from "./dynamodb-description";
import { DYNAMODB_MOVING_DETAILS } from "./lock-observation";

/** DynamoDB lock tables: Amazon's dynamodb-lock-client (ownerName, leaseDuration, recordVersionNumber, isReleased). */
export const dynamodbKind = defineSourceKind<DynamodbClusterConfig, DynamodbSourceConfig>({
  ...identityOf(dynamodbDescription, { movingDetails: DYNAMODB_MOVING_DETAILS }),
  configSchema: dynamodbClusterSchema,
  // readIntervalMs is this kind's poll interval: each read is one full Scan of the table.
  resolveConfig: (config, _setting, defaultPollIntervalMs) => ({ ...config, pollIntervalMs: config.readIntervalMs ?? defaultPollIntervalMs }),
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
  // The AWS SDK loads when a DynamoDB cluster is polled or checked, not in every process.
  openCycles: async (config, saved, log) => (await import("./dynamodb-runtime")).openDynamodbCycles(config, saved, log),
  checkReachable: async (config, timeoutMs) => (await import("./dynamodb-runtime")).checkDynamodbReachable(config, timeoutMs),
});
