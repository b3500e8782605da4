import "server-only";

import path from "node:path";

import { z } from "zod";

import { type AccessConfig, parseAccessConfig } from "@/lib/auth/access-config";
import { type AlertsConfig, AlertsConfigError, parseAlertsConfig } from "@/lib/alerts/alert-config";
import { ConfigError, describeConfigIssue, describeValue, readConfigText } from "@/lib/config-files";
import { isListenHost, LISTEN_HOST_EXPECTED, type ListenSettings } from "@/lib/http/listen-address";
import { HASHING_SCHEMES, type HashingScheme } from "@/lib/pulsar/producer-routing";
import { httpUrl, positiveInt } from "@/lib/sources/config-fields";
import type { PulsarClusterConfig } from "@/lib/sources/pulsar/pulsar-config";
import { type ClusterConfig, DEFAULT_SOURCE_KIND, findSourceKind, SOURCE_KINDS, sourceKindOf } from "@/lib/sources/registry";

// Every setting Baton has, parsed once. Nothing else reads process.env.
// docs/configuration.md is generated from these schemas (npm run docs:config); the prose of each
// setting is in tools/docs/configuration-descriptions.ts.

// npm scripts, `next start` and the worker all run from the project root.
const PROJECT_ROOT = process.cwd();

export { ConfigError };

const postgresUrl = z
  .string()
  .trim()
  .refine((value) => /^postgres(ql)?:\/\/[^\s]+$/i.test(value) && URL.canParse(value), {
    message: "must be a postgresql://user:password@host:port/database URL",
  });

/** A cluster entry: its `kind` (default "pulsar") picks the schema of that kind's entry. */
const clusterEntrySchema = z.unknown().superRefine((entry, ctx) => {
  const kind = kindOfEntry(entry);
  const source = findSourceKind(kind);
  if (!source) {
    ctx.addIssue({ code: "custom", message: `must be one of ${SOURCE_KINDS.map((k) => `"${k.kind}"`).join(", ")}`, path: ["kind"] });
    return;
  }
  const parsed = source.configSchema.safeParse(entry);
  // The kind's own issues, as they are (paths and codes), so errors name the exact setting.
  if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue(issue as z.core.$ZodRawIssue);
});

function kindOfEntry(entry: unknown): string {
  const kind = entry !== null && typeof entry === "object" ? (entry as { kind?: unknown }).kind : undefined;
  return typeof kind === "string" ? kind : DEFAULT_SOURCE_KIND;
}

const clustersSchema = z.array(clusterEntrySchema).superRefine((clusters, ctx) => {
  const seen = new Set<string>();
  clusters.forEach((cluster, index) => {
    const name = (cluster as { name?: unknown }).name;
    if (typeof name === "string" && seen.has(name)) ctx.addIssue({ code: "custom", message: `duplicate cluster name "${name}"`, path: [index, "name"] });
    if (typeof name === "string") seen.add(name);
  });
});

const configFileSchema = z.object({ clusters: clustersSchema.default([]) }).strict();

export const envSchema = z.object({
  DATABASE_URL: postgresUrl.optional(),
  BATON_DATA_DIR: z.string().min(1).default(path.join(PROJECT_ROOT, ".baton")),
  BATON_EMBEDDED_PG_PORT: positiveInt(1024, 65535).default(54329),
  PORT: positiveInt(1, 65535).default(3000),
  BATON_LISTEN_HOST: z.string().trim().refine(isListenHost, { message: LISTEN_HOST_EXPECTED }).optional(),
  BATON_CONFIG_FILE: z.string().min(1).optional(),
  BATON_CLUSTERS: z.string().min(1).optional(),
  BATON_PULSAR_ADMIN_URL: httpUrl.optional(),
  BATON_PULSAR_TOKEN: z.string().min(1).optional(),
  BATON_PULSAR_CLUSTER_NAME: z.string().min(1).default("local"),
  BATON_POLL_INTERVAL_MS: positiveInt(500, 3_600_000).default(5_000),
  BATON_HEALTH_TIMEOUT_MS: positiveInt(100, 60_000).default(2_000),
  BATON_LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  BATON_FLAP_CHANGES: positiveInt(2, 1_000).default(4),
  BATON_FLAP_WINDOW_MINUTES: positiveInt(1, 1_440).default(10),
  BATON_STUCK_SAMPLES: positiveInt(2, 12).default(3),
  // "ttl": one TTL or lease of the lock (a minute where there is none); or a number of seconds.
  BATON_RECOVERED_AFTER_SECONDS: z.union([z.literal("ttl"), positiveInt(1, 86_400)]).default("ttl"),
  BATON_DEPLOYMENT_GRACE_MINUTES: z.coerce.number().int().min(0).max(1_440).default(5),
  BATON_DRILLDOWN_WINDOW_MINUTES: positiveInt(1, 1_440).default(2),
  BATON_TRACE_URL_TEMPLATE: z
    .string()
    .refine((value) => value.includes("{traceId}") && /^https?:\/\//.test(value), { message: "must be an http(s) URL containing {traceId}" })
    .optional(),
  BATON_RETENTION_DAYS: positiveInt(1, 3_650).default(30),
  BATON_VIOLATION_RETENTION_DAYS: positiveInt(1, 3_650).optional(),
  BATON_RETENTION_BATCH_SIZE: positiveInt(100, 1_000_000).default(10_000),
  BATON_PRODUCER_ROUTING: z.string().optional(),
  BATON_INGEST_MAX_BODY_BYTES: positiveInt(1_024, 256 * 1024 * 1024).default(16 * 1024 * 1024),
  BATON_INGEST_MAX_EVENTS: positiveInt(1, 1_000_000).default(10_000),
  BATON_INGEST_TOPIC: z
    .string()
    .regex(/^(persistent|non-persistent):\/\/[\w.-]+\/[\w.-]+\/[\w.-]+$/, { message: "must be persistent://tenant/namespace/topic" })
    .optional(),
  BATON_INGEST_TOPIC_CLUSTER: z.string().min(1).optional(),
  BATON_INGEST_SUBSCRIPTION: z
    .string()
    .regex(/^[\w.-]+$/, { message: "must be a subscription name" })
    .default("baton-ingest"),
  BATON_INGEST_SUBSCRIPTION_TYPE: z.enum(["Shared", "Key_Shared"]).default("Shared"),
  BATON_ALERT_RULES: z.string().min(1).optional(),
  BATON_ALERT_WEBHOOKS: z.string().min(1).optional(),
  BATON_ALERT_EVALUATION_INTERVAL_MS: positiveInt(500, 3_600_000).default(5_000),
  BATON_ALERTMANAGER_URL: httpUrl.optional(),
  BATON_ALERTMANAGER_RESEND_SECONDS: positiveInt(1, 86_400).default(60),
  BATON_ALERT_LINK_BASE_URL: httpUrl.optional(),
  BATON_METRICS_MAX_RESOURCES: z.coerce.number().int().min(0).max(10_000_000).default(20_000),
  BATON_WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65_535).default(0),
  BATON_FLEET_RETRY_MS: positiveInt(200, 60_000).default(2_000),
  BATON_WORKER_ID: z
    .string()
    .regex(/^[\w.:@-]{1,100}$/, { message: "must be 1-100 letters, digits, '.', ':', '@', '_' or '-'" })
    .optional(),
});

export type { ClusterConfig };
export type { PulsarClusterConfig, ScopeConfig } from "@/lib/sources/pulsar/pulsar-config";

export type Config = {
  /** The configured database, or null for Baton's embedded PostgreSQL. */
  databaseUrl: string | null;
  dataDir: string;
  embeddedPostgresPort: number;
  port: number;
  /**
   * BATON_LISTEN_HOST: the address the web server and the worker's /metrics listen on; null for
   * the access mode's default (lib/http/listen-address.ts: this machine only while open).
   */
  listenHost: string | null;
  clusters: ClusterConfig[];
  healthTimeoutMs: number;
  logLevel: "debug" | "info" | "warn" | "error";
  ingest: IngestConfig;
  board: BoardConfig;
  violations: ViolationsConfig;
  /** Who may read the pages and the read API (lib/auth/access-config.ts). */
  access: AccessConfig;
  alerts: AlertsConfig;
  metrics: MetricsConfig;
  fleet: FleetConfig;
};

export type MetricsConfig = {
  /** /metrics names each resource's holder while at most this many resources are watched; 0 never. */
  maxResourceSeries: number;
  /** The worker serves its own /metrics (poll durations) on this port; 0 for none. */
  workerPort: number;
};

export type FleetConfig = {
  /** How often a worker replica heartbeats, renews its cluster leases and tries free ones. */
  retryMs: number;
  /** This replica's name in the fleet; null: `<host>:<pid>`. */
  workerId: string | null;
};

export type ViolationsConfig = {
  /** A violation up to this long after a deployment of its service finished still counts as inside it. */
  deploymentGraceMs: number;
  /** The drill-down shows leader changes and deployments this far around each event. */
  drilldownWindowMs: number;
  /** A trace link: an http(s) URL with {traceId}, e.g. a Jaeger or Tempo search; null for no links. */
  traceUrlTemplate: string | null;
  /** Raw counter events that are not violations are dropped (an hour partition at a time) once older than this; rollups stay. */
  retentionDays: number;
  /** Violations (counter > 0), the rare and valuable rows, are kept this long: their own partitions. */
  violationRetentionDays: number;
  /** Rows deleted per statement where retention still deletes rows (per-minute counts, the default partitions). */
  retentionBatchSize: number;
  /** Per full topic name: the producers' hashingScheme, which routes a keyed message to its partition (default JavaStringHash). */
  producerRouting: Record<string, HashingScheme>;
};

/** BATON_PRODUCER_ROUTING: {"persistent://tenant/ns/topic": "Murmur3_32Hash", ...}. */
const producerRoutingSchema = z.record(z.string(), z.enum(HASHING_SCHEMES, { message: `must be ${HASHING_SCHEMES.join(" or ")}` }));
/** Violations are kept this long when BATON_VIOLATION_RETENTION_DAYS is unset (never less than BATON_RETENTION_DAYS). */
export const DEFAULT_VIOLATION_RETENTION_DAYS = 90;
const FULL_TOPIC_NAME = /^(persistent|non-persistent):\/\/[\w.-]+\/[\w.-]+\/[\w.-]+$/;

function parseProducerRouting(text: string | undefined): Record<string, HashingScheme> {
  if (text === undefined) return {};
  const input = parseJson("BATON_PRODUCER_ROUTING", text);
  const parsed = producerRoutingSchema.safeParse(input);
  if (!parsed.success) fail("BATON_PRODUCER_ROUTING", input, parsed.error);
  const badTopic = Object.keys(parsed.data).find((topic) => !FULL_TOPIC_NAME.test(topic));
  if (badTopic !== undefined)
    throw new ConfigError(
      `Invalid configuration: BATON_PRODUCER_ROUTING names "${badTopic}", which is not a full topic name (persistent://tenant/namespace/topic)`,
    );
  return parsed.data;
}

/** Thresholds of the leaders board's health flags. */
export type BoardConfig = {
  /** Flapping: more than this many leader changes... */
  flapChanges: number;
  /** ...within this window. */
  flapWindowMs: number;
  /** Stuck leader: backlog grew over this many consecutive samples with the leader unchanged. */
  stuckSamples: number;
  /**
   * A finding (expired while held, flapping) ends once the holder has kept the resource this
   * long; null: one TTL or lease of the lock, a minute where there is none.
   */
  recoveredAfterMs: number | null;
};

export type IngestTopicConfig = {
  /** The cluster whose WebSocket API Baton consumes the topic through. */
  cluster: PulsarClusterConfig;
  topic: string;
  subscription: string;
  subscriptionType: "Shared" | "Key_Shared";
};

export type IngestConfig = {
  /** Larger request bodies get 413. */
  maxBodyBytes: number;
  /** More events in one request get 413. */
  maxEventsPerRequest: number;
  /** The Pulsar topic of counter events Baton consumes, or null. */
  topic: IngestTopicConfig | null;
};

function fail(variable: string, input: unknown, error: z.ZodError): never {
  throw new ConfigError(describeConfigIssue(variable, input, error));
}

function parseJson(variable: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`Invalid configuration: ${variable} is not valid JSON (${(error as Error).message})`);
  }
}

function parseClusters(variable: string, input: unknown, defaultPollIntervalMs: number): ClusterConfig[] {
  const parsed = clustersSchema.safeParse(input);
  if (!parsed.success) fail(variable, input, parsed.error);
  return parsed.data.map((entry, index) => {
    const source = findSourceKind(kindOfEntry(entry))!;
    return source.parseConfig(entry, `${variable}[${index}]`, defaultPollIntervalMs);
  });
}

function resolveIngestTopic(vars: z.output<typeof envSchema>, clusters: ClusterConfig[]): IngestTopicConfig | null {
  if (!vars.BATON_INGEST_TOPIC) return null;
  const clusterName = vars.BATON_INGEST_TOPIC_CLUSTER ?? (clusters.length === 1 ? clusters[0]!.name : undefined);
  if (!clusterName) {
    throw new ConfigError("Invalid configuration: BATON_INGEST_TOPIC_CLUSTER must name the cluster of BATON_INGEST_TOPIC when several clusters are configured");
  }
  const cluster = clusters.find((c) => c.name === clusterName);
  if (!cluster) {
    throw new ConfigError(
      `Invalid configuration: BATON_INGEST_TOPIC_CLUSTER names no configured cluster (got "${clusterName}"; configured: ${clusters.map((c) => c.name).join(", ") || "none"})`,
    );
  }
  if (cluster.kind !== "pulsar") {
    throw new ConfigError(`Invalid configuration: BATON_INGEST_TOPIC_CLUSTER must name a Pulsar cluster (got "${clusterName}", of kind "${cluster.kind}")`);
  }
  return { cluster, topic: vars.BATON_INGEST_TOPIC, subscription: vars.BATON_INGEST_SUBSCRIPTION, subscriptionType: vars.BATON_INGEST_SUBSCRIPTION_TYPE };
}

function resolveAlerts(vars: z.output<typeof envSchema>): AlertsConfig {
  try {
    return parseAlertsConfig({
      rulesJson: vars.BATON_ALERT_RULES === undefined ? undefined : parseJson("BATON_ALERT_RULES", vars.BATON_ALERT_RULES),
      webhooksJson: vars.BATON_ALERT_WEBHOOKS === undefined ? undefined : parseJson("BATON_ALERT_WEBHOOKS", vars.BATON_ALERT_WEBHOOKS),
      evaluationIntervalMs: vars.BATON_ALERT_EVALUATION_INTERVAL_MS,
      alertmanagerUrl: vars.BATON_ALERTMANAGER_URL ?? null,
      resendSeconds: vars.BATON_ALERTMANAGER_RESEND_SECONDS,
      linkBaseUrl: vars.BATON_ALERT_LINK_BASE_URL ?? `http://localhost:${vars.PORT}`,
    });
  } catch (error) {
    if (error instanceof AlertsConfigError) throw new ConfigError(error.message);
    throw error;
  }
}

/**
 * Parses every setting from the environment (and the config file it names). Throws a
 * ConfigError whose message is one line naming the variable and the expected form.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty variables count as unset: `FOO= npm start` should not be an error.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsedEnv = envSchema.safeParse(present);
  if (!parsedEnv.success) {
    const issue = parsedEnv.error.issues[0]!;
    const variable = String(issue.path[0]);
    throw new ConfigError(`Invalid configuration: ${variable} ${issue.message} (got ${describeValue(present[variable])})`);
  }
  const vars = parsedEnv.data;

  const clusters: ClusterConfig[] = [];
  if (vars.BATON_CONFIG_FILE) {
    const file = path.resolve(vars.BATON_CONFIG_FILE);
    const input = parseJson("BATON_CONFIG_FILE", readConfigText("BATON_CONFIG_FILE", file));
    const parsedFile = configFileSchema.safeParse(input);
    if (!parsedFile.success) fail("BATON_CONFIG_FILE", input, parsedFile.error);
    clusters.push(...parseClusters("BATON_CONFIG_FILE.clusters", (input as { clusters?: unknown }).clusters ?? [], vars.BATON_POLL_INTERVAL_MS));
  }
  if (vars.BATON_CLUSTERS) {
    clusters.push(...parseClusters("BATON_CLUSTERS", parseJson("BATON_CLUSTERS", vars.BATON_CLUSTERS), vars.BATON_POLL_INTERVAL_MS));
  }
  if (vars.BATON_PULSAR_ADMIN_URL) {
    clusters.push(
      ...parseClusters(
        "BATON_PULSAR_ADMIN_URL",
        [{ name: vars.BATON_PULSAR_CLUSTER_NAME, adminUrl: vars.BATON_PULSAR_ADMIN_URL, token: vars.BATON_PULSAR_TOKEN }],
        vars.BATON_POLL_INTERVAL_MS,
      ),
    );
  }
  const names = new Set<string>();
  for (const cluster of clusters) {
    if (names.has(cluster.name))
      throw new ConfigError(
        `Invalid configuration: cluster "${cluster.name}" is configured twice (names must be unique across BATON_CONFIG_FILE, BATON_CLUSTERS and BATON_PULSAR_ADMIN_URL)`,
      );
    names.add(cluster.name);
  }
  // Clusters of one kind that cannot work side by side (a Redlock group over a master that a
  // single-master object reads with the same patterns).
  for (const kind of new Set(clusters.map((cluster) => cluster.kind))) {
    const sameKind = clusters.filter((cluster) => cluster.kind === kind);
    const conflict = sourceKindOf(sameKind[0]!).findConflicts?.(sameKind)[0];
    if (conflict !== undefined) throw new ConfigError(`Invalid configuration: ${conflict}`);
  }

  const access = parseAccessConfig(present);

  return {
    access,
    alerts: resolveAlerts(vars),
    violations: {
      deploymentGraceMs: vars.BATON_DEPLOYMENT_GRACE_MINUTES * 60_000,
      drilldownWindowMs: vars.BATON_DRILLDOWN_WINDOW_MINUTES * 60_000,
      traceUrlTemplate: vars.BATON_TRACE_URL_TEMPLATE ?? null,
      retentionDays: vars.BATON_RETENTION_DAYS,
      violationRetentionDays: vars.BATON_VIOLATION_RETENTION_DAYS ?? Math.max(DEFAULT_VIOLATION_RETENTION_DAYS, vars.BATON_RETENTION_DAYS),
      retentionBatchSize: vars.BATON_RETENTION_BATCH_SIZE,
      producerRouting: parseProducerRouting(vars.BATON_PRODUCER_ROUTING),
    },
    board: {
      flapChanges: vars.BATON_FLAP_CHANGES,
      flapWindowMs: vars.BATON_FLAP_WINDOW_MINUTES * 60_000,
      stuckSamples: vars.BATON_STUCK_SAMPLES,
      recoveredAfterMs: vars.BATON_RECOVERED_AFTER_SECONDS === "ttl" ? null : vars.BATON_RECOVERED_AFTER_SECONDS * 1_000,
    },
    ingest: {
      maxBodyBytes: vars.BATON_INGEST_MAX_BODY_BYTES,
      maxEventsPerRequest: vars.BATON_INGEST_MAX_EVENTS,
      topic: resolveIngestTopic(vars, clusters),
    },
    metrics: { maxResourceSeries: vars.BATON_METRICS_MAX_RESOURCES, workerPort: vars.BATON_WORKER_METRICS_PORT },
    fleet: { retryMs: vars.BATON_FLEET_RETRY_MS, workerId: vars.BATON_WORKER_ID ?? null },
    databaseUrl: vars.DATABASE_URL ?? null,
    dataDir: path.resolve(vars.BATON_DATA_DIR),
    embeddedPostgresPort: vars.BATON_EMBEDDED_PG_PORT,
    port: vars.PORT,
    listenHost: vars.BATON_LISTEN_HOST ?? null,
    clusters,
    healthTimeoutMs: vars.BATON_HEALTH_TIMEOUT_MS,
    logLevel: vars.BATON_LOG_LEVEL,
  };
}

/** What decides where a server of Baton's listens on `port`: BATON_LISTEN_HOST and the access mode (lib/http/listen-address.ts). */
export function getListenSettings(config: Config, port: number): ListenSettings {
  return { listenHost: config.listenHost, accessMode: config.access.method.mode, port };
}

let cached: Config | undefined;

/** The process's configuration, parsed on first use. */
export function getConfig(): Config {
  cached ??= loadConfig();
  return cached;
}
