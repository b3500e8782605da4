import "server-only";

import { z } from "zod";

import { readConfigText } from "@/lib/config-files";
import { clusterName, httpUrl, positiveInt } from "@/lib/sources/config-fields";

// A cluster of kind "pulsar" (the default when an entry names no kind): its admin REST API,
// credentials, the watched scope and the request budget.

/**
 * 8 MiB. Measured (npm run bench:stats-size) for a topic of 100 partitions with 20 Key_Shared
 * consumers: 4.4 MB on Pulsar 4.2.4, 6.7 MB on 3.0.7 (its ranges are strings, and it ignores
 * excludePublishers); parsing one grows the heap by about twelve times its bytes, so with
 * maxConcurrency answers in flight this bounds the poller's memory as much as the answer's.
 */
export const DEFAULT_MAX_STATS_BYTES = 8 * 1024 * 1024;

const scopeSchema = z
  .object({
    /** Watch every topic of every tenant (except Pulsar's own `pulsar` tenant). */
    everything: z.boolean().default(false),
    tenants: z.array(z.string().regex(/^[\w.-]+$/, { message: "must be a tenant name" })).default([]),
    namespaces: z.array(z.string().regex(/^[\w.-]+\/[\w.-]+$/, { message: "must be tenant/namespace" })).default([]),
    /** Full topic names or patterns with `*`, e.g. persistent://acme/orders/user-events-*. */
    topics: z
      .array(
        z.string().regex(/^(persistent|non-persistent):\/\/[\w.-]+\/[\w.-]+\/[\w.*-]+$/, {
          message: "must be persistent://tenant/namespace/topic (with * as a wildcard)",
        }),
      )
      .default([]),
  })
  .strict()
  .transform((scope) => ({
    ...scope,
    // Nothing named means everything: a fresh cluster entry should show something.
    everything: scope.everything || (scope.tenants.length === 0 && scope.namespaces.length === 0 && scope.topics.length === 0),
  }));

const tlsSchema = z
  .object({
    /** PEM file of the CA that signed the admin endpoint's certificate. */
    caFile: z.string().min(1).optional(),
    /** Client certificate and key for mutual TLS. */
    certFile: z.string().min(1).optional(),
    keyFile: z.string().min(1).optional(),
    /** false accepts any certificate: for test clusters only. */
    rejectUnauthorized: z.boolean().default(true),
  })
  .strict();

export const pulsarClusterSchema = z
  .object({
    kind: z.literal("pulsar").default("pulsar"),
    name: clusterName,
    adminUrl: httpUrl,
    /** Bearer token for the admin API (Pulsar token authentication). */
    token: z.string().min(1).optional(),
    /** A file holding the token, read at start-up (for mounted secrets). */
    tokenFile: z.string().min(1).optional(),
    tls: tlsSchema.optional(),
    scope: scopeSchema.default({ everything: true, tenants: [], namespaces: [], topics: [] }),
    pollIntervalMs: positiveInt(500, 3_600_000).optional(),
    discoveryIntervalMs: positiveInt(1_000, 86_400_000).default(60_000),
    requestsPerSecond: positiveInt(1, 10_000).default(50),
    maxConcurrency: positiveInt(1, 64).default(4),
    requestTimeoutMs: positiveInt(100, 120_000).default(5_000),
    /**
     * "auto": scrape each broker's /metrics/ for consumer-level series (they need the broker
     * setting exposeConsumerLevelMetricsInPrometheus=true) and re-poll at once the topics whose
     * consumers changed; without the setting Baton polls as it would with "off".
     */
    consumerSignal: z.enum(["auto", "off"], { message: 'must be "auto" or "off"' }).default("auto"),
    /**
     * How often each broker's /metrics/ is scraped, at most; a broker is never scraped more than half
     * of the time (docs/kinds/pulsar.md: at 10,000 partitions one scrape costs the broker about 0.8 s of CPU, and
     * Baton reads 9.4 MB of its 194 MB).
     */
    consumerSignalIntervalMs: positiveInt(250, 60_000).default(1_000),
    /**
     * The largest stats answer read for one topic, in bytes: a larger one is not parsed, and that
     * topic's resources go stale with an error naming it and the limit (the rest of the cycle goes on).
     */
    maxStatsBytes: positiveInt(65_536, 1_073_741_824).default(DEFAULT_MAX_STATS_BYTES),
  })
  .strict()
  .refine((cluster) => !(cluster.token && cluster.tokenFile), { message: "set token or tokenFile, not both", path: ["tokenFile"] });

/** One Pulsar entry as its schema parses it (before the token file is read and the defaults applied). */
export type PulsarClusterEntry = z.output<typeof pulsarClusterSchema>;
export type PulsarClusterConfig = Omit<PulsarClusterEntry, "pollIntervalMs" | "tokenFile"> & { pollIntervalMs: number };
export type ScopeConfig = z.output<typeof scopeSchema>;

export function isPulsarCluster(cluster: { kind: string }): cluster is PulsarClusterConfig {
  return cluster.kind === "pulsar";
}

/** The parsed entry with its token file read and its poll interval defaulted. */
export function resolvePulsarCluster(entry: PulsarClusterEntry, setting: string, defaultPollIntervalMs: number): PulsarClusterConfig {
  const { tokenFile, ...rest } = entry;
  const token = tokenFile ? readConfigText(`${setting}.tokenFile`, tokenFile).trim() : entry.token;
  return { ...rest, token, pollIntervalMs: entry.pollIntervalMs ?? defaultPollIntervalMs };
}
