import { z } from "zod";

import { ConfigError, describeConfigIssue } from "@/lib/config-files";

import { hasGlobCharacters, isMatchEverything } from "./redis-glob";

// The settings of one Redis source (`kind: "redis"`). The schema is a plain zod object so that
// lib/config.ts can list it as one member of a discriminated union on `kind`.

/**
 * Budget of commands per second against each source; a pipeline of N commands counts N.
 * Measured (npm run bench:redis-scan, Redis 7.0, 1,000,000 keys + 10,000 locks): a full
 * discovery pass at COUNT 1,000 is 1,010 SCANs, about one second of this budget (0.8 s, 0.68 s
 * of Redis CPU), and one read of 10,000 locks is 20,000 commands that cost Redis 18 ms of CPU.
 * 1,000/s reads up to 2,500 token locks (1,250 Redisson locks) every 5 s poll; more locks or
 * faster polls need a larger budget, which the read's low cost allows.
 */
export const DEFAULT_COMMANDS_PER_SECOND = 1_000;
/**
 * Keys Redis walks per SCAN call. SCAN costs the keys walked, whatever MATCH finds, so COUNT
 * trades round trips against how long one call holds Redis's single thread. Measured over
 * 1,010,000 keys: COUNT 100: 10,053 calls, 1.37 s Redis CPU, 112 µs per call; 250: 4,032 calls,
 * 0.91 s, 200 µs; 1,000: 1,010 calls, 0.68 s, 636 µs (slowest 1.1 ms); 10,000: 101 calls,
 * 0.63 s, 6.2 ms (slowest 8.3 ms). 1,000 costs nearly the least CPU while no call holds Redis
 * much over a millisecond, so other clients barely notice a pass.
 */
export const DEFAULT_SCAN_COUNT = 1_000;
/** A full SCAN pass every 5 minutes: locks appear between passes through watch hints. */
export const DEFAULT_DISCOVERY_INTERVAL_MS = 300_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;

/** Redlock needs an odd group of independent masters so that a majority exists. */
const REDLOCK_GROUP_SIZES = [3, 5] as const;

const positiveInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const redisUrl = z
  .string()
  .trim()
  .refine((value) => /^rediss?:\/\/[^\s/]+/i.test(value) && URL.canParse(value), {
    message: "must be a redis:// or rediss:// URL",
  })
  .refine((value) => !URL.canParse(value) || /^\/?\d*$/.test(new URL(value).pathname), {
    message: "may end only in a database number (redis://host:6379/0)",
  });

const redisTlsSchema = z
  .object({
    /** PEM file of the CA that signed the server's certificate. */
    caFile: z.string().min(1).optional(),
    /** Client certificate and key for mutual TLS. */
    certFile: z.string().min(1).optional(),
    keyFile: z.string().min(1).optional(),
    /** false accepts any certificate: for test servers only. */
    rejectUnauthorized: z.boolean().default(true),
  })
  .strict()
  .refine((tls) => Boolean(tls.certFile) === Boolean(tls.keyFile), { message: "set certFile and keyFile together", path: ["keyFile"] });

function compileRegex(source: string): RegExp | string {
  try {
    return new RegExp(source);
  } catch (error) {
    return (error as Error).message;
  }
}

const holderPatternSchema = z
  .string()
  .min(1)
  .superRefine((source, ctx) => {
    const compiled = compileRegex(source);
    if (typeof compiled === "string") {
      ctx.addIssue({ code: "custom", message: `is not a valid regular expression: ${compiled}` });
    } else if (!/\(\?<holder>/.test(source)) {
      ctx.addIssue({ code: "custom", message: "must have a named group `holder`, e.g. ^(?<holder>[^:]+):" });
    }
  });

export const redisLayoutSchema = z.enum(["token", "redisson"]);

const lockPatternSchema = z
  .object({
    /** A Redis glob (SCAN MATCH syntax): `lock:*`, `{app}:leader`. Without glob characters it names one key. */
    match: z
      .string()
      .min(1)
      .refine((match) => !isMatchEverything(match), {
        message: "matches every key: Baton would walk and read every key of the database; name the locks' prefix, e.g. lock:*",
      }),
    /** token: `SET key token NX PX` (node-redlock, go-redsync, redis-py); redisson: Redisson's RLock hash. */
    layout: redisLayoutSchema.default("token"),
    /** A regex with a named group `holder` that picks a readable holder out of the token. */
    holderPattern: holderPatternSchema.optional(),
    /** The lock must always have a holder (a leader election): a free lock is unhealthy. */
    mustBeHeld: z.boolean().default(false),
  })
  .strict();

export const redisClusterSchema = z
  .object({
    kind: z.literal("redis"),
    name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/i, { message: "must be 1-63 letters, digits, '.', '_' or '-'" }),
    /** One Redis master (or, with cluster: true, any node of a Redis Cluster). */
    url: redisUrl.optional(),
    /** A Redlock group: the same locks on 3 or 5 independent masters. */
    urls: z.array(redisUrl).optional(),
    password: z.string().min(1).optional(),
    /** A file holding the password, read at start-up (for mounted secrets). */
    passwordFile: z.string().min(1).optional(),
    tls: redisTlsSchema.optional(),
    patterns: z.array(lockPatternSchema).min(1, { message: "must name at least one lock pattern" }),
    commandsPerSecond: positiveInt(1, 100_000).default(DEFAULT_COMMANDS_PER_SECOND),
    scanCount: positiveInt(10, 100_000).default(DEFAULT_SCAN_COUNT),
    discoveryIntervalMs: positiveInt(1_000, 86_400_000).default(DEFAULT_DISCOVERY_INTERVAL_MS),
    pollIntervalMs: positiveInt(100, 3_600_000).optional(),
    requestTimeoutMs: positiveInt(100, 120_000).default(DEFAULT_REQUEST_TIMEOUT_MS),
    /** A Redis Cluster: discover the masters from `url` and read master by master. */
    cluster: z.boolean().default(false),
  })
  .strict()
  .superRefine((config, ctx) => {
    if (config.url && config.urls) ctx.addIssue({ code: "custom", message: "set url (one master) or urls (a Redlock group), not both", path: ["urls"] });
    if (!config.url && !config.urls)
      ctx.addIssue({ code: "custom", message: "is required: set url (one master) or urls (a Redlock group of 3 or 5 masters)", path: ["url"] });
    if (config.urls && !(REDLOCK_GROUP_SIZES as readonly number[]).includes(config.urls.length)) {
      const hint = config.urls.length === 1 ? "; for one master set url" : "";
      ctx.addIssue({
        code: "custom",
        message: `must list 3 or 5 independent masters for a Redlock group (a majority of an even group can tie)${hint}`,
        path: ["urls"],
      });
    }
    if (config.urls && new Set(config.urls).size !== config.urls.length) {
      ctx.addIssue({ code: "custom", message: "lists the same master twice: a Redlock group needs independent masters", path: ["urls"] });
    }
    if (config.cluster && config.urls)
      ctx.addIssue({ code: "custom", message: "cannot be combined with urls: a Redlock group of Redis Clusters is not supported", path: ["cluster"] });
    if (config.password && config.passwordFile) ctx.addIssue({ code: "custom", message: "set password or passwordFile, not both", path: ["passwordFile"] });
    const seen = new Set<string>();
    config.patterns.forEach((pattern, index) => {
      if (seen.has(pattern.match)) ctx.addIssue({ code: "custom", message: `duplicate pattern "${pattern.match}"`, path: ["patterns", index, "match"] });
      seen.add(pattern.match);
    });
  });

export type RedisClusterInput = z.input<typeof redisClusterSchema>;
export type RedisClusterConfig = z.output<typeof redisClusterSchema>;
/** A Redis cluster entry made ready: its poll interval defaulted. */
export type RedisSourceConfig = RedisClusterConfig & { pollIntervalMs: number };
export type RedisLockPattern = RedisClusterConfig["patterns"][number];
export type RedisLayout = z.output<typeof redisLayoutSchema>;

/** Its parse errors are the configuration's: one line naming the setting. */
export { ConfigError as RedisConfigError } from "@/lib/config-files";

/**
 * Parses one Redis source, throwing a one-line error in lib/config.ts's wording:
 * `Invalid configuration: <root>.patterns[0].match <message> (got "*")`.
 */
export function parseRedisClusterConfig(input: unknown, root = "cluster"): RedisClusterConfig {
  const parsed = redisClusterSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new ConfigError(describeConfigIssue(root, input, parsed.error));
}

/** The masters a source reads: one url, or the Redlock group's urls (a Redis Cluster's seed is `url`). */
export function listMasterUrls(config: Pick<RedisClusterConfig, "url" | "urls">): string[] {
  return config.urls ?? (config.url ? [config.url] : []);
}

/** True when `match` names exactly one key (no glob characters): it is read without SCAN. */
export function isLiteralKeyPattern(match: string): boolean {
  return !hasGlobCharacters(match);
}
