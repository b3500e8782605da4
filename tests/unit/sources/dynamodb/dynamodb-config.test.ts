import { describe, expect, it } from "vitest";

import { ConfigError } from "@/lib/config-files";
import { DEFAULT_REQUESTS_PER_SECOND, parseDynamodbClusterConfig } from "@/lib/sources/dynamodb/dynamodb-config";

const valid = { kind: "dynamodb", name: "locks", region: "eu-west-1", tableName: "lockTable" };

function errorOf(input: unknown): string {
  try {
    parseDynamodbClusterConfig(input, "BATON_CLUSTERS[2]");
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a configuration error");
}

describe("parseDynamodbClusterConfig", () => {
  it("fills the lock client's defaults", () => {
    expect(parseDynamodbClusterConfig(valid)).toEqual({
      ...valid,
      partitionKeyName: "key",
      mustBeHeld: false,
      requestsPerSecond: DEFAULT_REQUESTS_PER_SECOND,
      pageSize: 1_000,
      segments: 4,
      discoveryIntervalMs: 60_000,
      requestTimeoutMs: 5_000,
    });
  });

  it("accepts an endpoint, a profile, a sort key and a read interval", () => {
    const config = parseDynamodbClusterConfig({
      ...valid,
      endpoint: "http://127.0.0.1:8000/",
      profile: "ops",
      partitionKeyName: "lockKey",
      sortKeyName: "shard",
      readIntervalMs: 2_000,
    });
    expect(config).toMatchObject({
      endpoint: "http://127.0.0.1:8000",
      profile: "ops",
      partitionKeyName: "lockKey",
      sortKeyName: "shard",
      readIntervalMs: 2_000,
    });
  });

  const cases: { name: string; input: unknown; message: string }[] = [
    { name: "no region", input: { ...valid, region: undefined }, message: "Invalid configuration: BATON_CLUSTERS[2].region " },
    {
      name: "a region that is none",
      input: { ...valid, region: "Ireland" },
      message: 'BATON_CLUSTERS[2].region must be an AWS region such as eu-west-1 (got "Ireland")',
    },
    {
      name: "an endpoint that is no URL",
      input: { ...valid, endpoint: "localhost:8000" },
      message: 'BATON_CLUSTERS[2].endpoint must be an http:// or https:// URL (got "localhost:8000")',
    },
    {
      name: "a table name with a slash",
      input: { ...valid, tableName: "locks/a" },
      message: "BATON_CLUSTERS[2].tableName must be a DynamoDB table name: 3-255 letters, digits",
    },
    {
      name: "an empty partition key name",
      input: { ...valid, partitionKeyName: "" },
      message: 'BATON_CLUSTERS[2].partitionKeyName must not be empty (got "")',
    },
    {
      name: "a sort key named like the partition key",
      input: { ...valid, sortKeyName: "key" },
      message: 'BATON_CLUSTERS[2].sortKeyName must differ from partitionKeyName (got "key")',
    },
    { name: "a read interval under 100 ms", input: { ...valid, readIntervalMs: 10 }, message: "BATON_CLUSTERS[2].readIntervalMs " },
    { name: "no request budget", input: { ...valid, requestsPerSecond: 0 }, message: "BATON_CLUSTERS[2].requestsPerSecond " },
    {
      name: "an unknown setting",
      input: { ...valid, accessKeyId: "AKIA" },
      message: 'BATON_CLUSTERS[2] Unrecognized key: "accessKeyId" (unknown key "accessKeyId")',
    },
  ];
  it.each(cases)("rejects $name in one line naming the setting", ({ input, message }) => {
    const text = errorOf(input);
    expect(text).toContain(message);
    expect(text).not.toContain("\n");
  });
});
