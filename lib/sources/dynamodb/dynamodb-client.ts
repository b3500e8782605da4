import { DynamoDBClient } from "@aws-sdk/client-dynamodb";

import type { DynamodbClusterConfig } from "./dynamodb-config";

// One SDK client per source: region, endpoint and profile from the settings, credentials from the
// SDK's default chain. One attempt per request: the poller's schedule is the retry, and a table
// that does not answer must go stale within one read, not after the SDK's backoff.

export function createDynamodbClient(config: Pick<DynamodbClusterConfig, "region" | "endpoint" | "profile" | "requestTimeoutMs">): DynamoDBClient {
  return new DynamoDBClient({
    region: config.region,
    ...(config.endpoint !== undefined ? { endpoint: config.endpoint } : {}),
    ...(config.profile !== undefined ? { profile: config.profile } : {}),
    maxAttempts: 1,
    // Without throwOnRequestTimeout the SDK only logs a warning and waits on: a server that
    // accepts connections but does not answer (stopped, overloaded) would hold the read forever.
    requestHandler: { connectionTimeout: config.requestTimeoutMs, requestTimeout: config.requestTimeoutMs, throwOnRequestTimeout: true },
  });
}

/** Where the table is, in words: the endpoint, else the region's. */
export function describeTableLocation(config: Pick<DynamodbClusterConfig, "region" | "endpoint" | "tableName">): string {
  return `${config.tableName} at ${config.endpoint ?? `dynamodb.${config.region}.amazonaws.com`}`;
}

/** What a failed request says, in one line an operator can act on. */
export function describeDynamodbError(error: unknown, where: string): string {
  const failure = error as { name?: string; code?: string; message?: string; cause?: { code?: string } };
  const code = failure.code ?? failure.cause?.code;
  if (code === "ECONNREFUSED") return `DynamoDB ${where}: connection refused (is the endpoint right and the server running?)`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `DynamoDB ${where}: host not found`;
  if (code === "ECONNRESET") return `DynamoDB ${where}: connection reset`;
  if (failure.name === "TimeoutError" || code === "ETIMEDOUT" || failure.name === "RequestTimeout") return `DynamoDB ${where}: no answer in time`;
  if (failure.name === "ResourceNotFoundException") return `DynamoDB ${where}: the table does not exist`;
  if (failure.name === "CredentialsProviderError") {
    return `DynamoDB ${where}: no AWS credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or the source's profile)`;
  }
  if (failure.name === "AccessDeniedException" || failure.name === "UnrecognizedClientException")
    return `DynamoDB ${where}: access denied (${failure.message ?? failure.name})`;
  if (failure.name === "ProvisionedThroughputExceededException" || failure.name === "ThrottlingException")
    return `DynamoDB ${where}: throttled (${failure.name})`;
  const message = (failure.message ?? String(error)).split("\n")[0];
  return `DynamoDB ${where}: ${failure.name && failure.name !== "Error" ? `${failure.name}: ` : ""}${message}`;
}
