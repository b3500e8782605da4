import { z } from "zod";

import { ConfigError, describeConfigIssue } from "@/lib/config-files";
import { clusterName, httpUrl, positiveInt } from "@/lib/sources/config-fields";

// The settings of one DynamoDB lock table (`kind: "dynamodb"`): the table of Amazon's
// dynamodb-lock-client. A plain zod object, so lib/config.ts lists it as one member of the union
// on `kind` and its issues keep their paths (one-line errors that name the setting).
// Credentials are not settings: the AWS SDK's default chain finds them (AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY, AWS_PROFILE or `profile`, web identity, the instance's role).

/**
 * Requests per second (Scan pages, BatchGetItems). A full read of N lock items costs about
 * N / pageSize + `segments` Scan pages (a page also stops at 1 MB). Measured (npm run
 * bench:dynamodb, 5,000 items, DynamoDB Local 2.5.4 on 2 shared cores, 4 segments): 8 requests,
 * 0.8-1.8 s, 73 read capacity units.
 */
export const DEFAULT_REQUESTS_PER_SECOND = 20;
export const DEFAULT_PAGE_SIZE = 1_000;
export const DEFAULT_SEGMENTS = 4;
/** A full read finds new locks itself; discovery only tells which locks are gone. */
export const DEFAULT_DISCOVERY_INTERVAL_MS = 60_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;

/** An attribute name as DynamoDB allows it: 1-255 characters. */
const attributeName = z.string().min(1, { message: "must not be empty" }).max(255, { message: "must be at most 255 characters" });

export const dynamodbClusterSchema = z
  .object({
    kind: z.literal("dynamodb"),
    name: clusterName,
    /** The table's AWS region, e.g. eu-west-1. */
    region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, { message: "must be an AWS region such as eu-west-1" }),
    /** Another endpoint than AWS's (DynamoDB Local, a VPC endpoint): an http(s) URL. */
    endpoint: httpUrl.optional(),
    /** A profile of the shared AWS config and credentials files (else AWS_PROFILE, else the default chain). */
    profile: z.string().min(1).optional(),
    tableName: z.string().regex(/^[a-zA-Z0-9_.-]{3,255}$/, { message: "must be a DynamoDB table name: 3-255 letters, digits, '_', '-' or '.'" }),
    /** The lock client's partition key attribute (its default: "key"). */
    partitionKeyName: attributeName.default("key"),
    /** The lock client's sort key attribute, when the table has one. */
    sortKeyName: attributeName.optional(),
    /** Every lock of the table must always have a holder: a free one is unhealthy. */
    mustBeHeld: z.boolean().default(false),
    /** How often the whole table is read (paginated Scans). */
    readIntervalMs: positiveInt(100, 3_600_000).optional(),
    /** Scan pages per second against the table: the read budget. */
    requestsPerSecond: positiveInt(1, 10_000).default(DEFAULT_REQUESTS_PER_SECOND),
    /** Items per Scan page (a page also ends at 1 MB). */
    pageSize: positiveInt(1, 10_000).default(DEFAULT_PAGE_SIZE),
    /** Segments of a full read's parallel Scan: each reads its share of the table at the same time. */
    segments: positiveInt(1, 64).default(DEFAULT_SEGMENTS),
    discoveryIntervalMs: positiveInt(1_000, 86_400_000).default(DEFAULT_DISCOVERY_INTERVAL_MS),
    requestTimeoutMs: positiveInt(100, 120_000).default(DEFAULT_REQUEST_TIMEOUT_MS),
  })
  .strict()
  .superRefine((config, ctx) => {
    if (config.sortKeyName !== undefined && config.sortKeyName === config.partitionKeyName) {
      ctx.addIssue({ code: "custom", message: "must differ from partitionKeyName", path: ["sortKeyName"] });
    }
  });

export type DynamodbClusterInput = z.input<typeof dynamodbClusterSchema>;
export type DynamodbClusterConfig = z.output<typeof dynamodbClusterSchema>;
/** A DynamoDB cluster entry made ready: its poll interval defaulted. */
export type DynamodbSourceConfig = DynamodbClusterConfig & { pollIntervalMs: number };

/**
 * Parses one DynamoDB source, throwing lib/config.ts's one-line ConfigError:
 * `Invalid configuration: <root>.<field> <message> (got "x")`; a password is never repeated.
 */
export function parseDynamodbClusterConfig(input: unknown, root = "cluster"): DynamodbClusterConfig {
  const parsed = dynamodbClusterSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new ConfigError(describeConfigIssue(root, input, parsed.error));
}
