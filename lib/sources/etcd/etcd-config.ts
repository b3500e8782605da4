import { z } from "zod";

import { ConfigError, describeConfigIssue } from "@/lib/config-files";
import { clusterName, httpUrl, positiveInt } from "@/lib/sources/config-fields";

// The settings of one etcd source (`kind: "etcd"`). A plain zod object, so lib/config.ts lists it
// as one member of the union on `kind` and its issues keep their paths (one-line errors that
// name the setting).

/**
 * Requests per second against the cluster. A full read of N elections costs N x candidates / 1,000
 * ranges plus one LeaseTimeToLive per holder lease that is due. Measured (npm run bench:etcd,
 * 5,000 elections of 3, etcd 3.4 on 2 shared cores): 5,016 requests when every holder has its own
 * lease and all are due (2.4-5.7 s, 2-3 s of etcd CPU: the machine, not this budget, was the
 * limit), 16 once the leases are known and far from their end.
 */
export const DEFAULT_REQUESTS_PER_SECOND = 2_000;
/** Discovery lists keys only; the watch finds new elections sooner, so this is only the backstop. */
export const DEFAULT_DISCOVERY_INTERVAL_MS = 60_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;

/**
 * How the keys under a prefix are laid out:
 * - go-election: Go's concurrency.Election (and `etcdctl elect`): `<name>/<lease id hex>` = the proposal
 * - go-mutex: Go's concurrency.Mutex (and `etcdctl lock`): `<name>/<lease id hex>`, empty value
 * - etcd3-election: the Node etcd3 client's Election: `election/<name>/<lease id decimal>` = the value
 * - etcd3-lock: the Node etcd3 client's Lock: the key itself, empty value, bound to a lease; no queue
 * - patroni: Patroni's namespace (PostgreSQL high availability on etcd v3, `namespace` in its
 *   settings, `/service/` by default): one lock per cluster (`<namespace><scope>`), held by the
 *   member named in `<scope>/leader`; the other members (`<scope>/members/<name>`) are its standbys
 * - auto: told apart key by key from the last path segment and the key's lease (never Patroni's)
 */
export const etcdLayoutSchema = z.enum(["go-election", "go-mutex", "etcd3-election", "etcd3-lock", "patroni", "auto"]);

const etcdTlsSchema = z
  .object({
    /** PEM file of the CA that signed the server's certificate. */
    caFile: z.string().min(1).optional(),
    /** Client certificate and key for mutual TLS (etcd's --client-cert-auth). */
    certFile: z.string().min(1).optional(),
    keyFile: z.string().min(1).optional(),
    /** false accepts any certificate: for test servers only. */
    rejectUnauthorized: z.boolean().default(true),
  })
  .strict()
  .refine((tls) => Boolean(tls.certFile) === Boolean(tls.keyFile), { message: "set certFile and keyFile together", path: ["keyFile"] });

const watchedPrefixSchema = z
  .object({
    /** A key prefix, e.g. `elections/` or `election/` (the Node client's). Every election or lock under it is read. */
    prefix: z.string().min(1, { message: "must not be empty: Baton would read every key of the cluster; name the elections' prefix, e.g. elections/" }),
    layout: etcdLayoutSchema.default("auto"),
    /** Each election or lock under it must always have a holder: a free one is unhealthy. */
    mustBeHeld: z.boolean().default(false),
  })
  .strict()
  .refine((watched) => watched.layout !== "patroni" || watched.prefix.endsWith("/"), {
    message: 'must end with "/" for layout patroni: Patroni\'s namespace with a slash, e.g. "/service/" (its scopes are the next path segment)',
    path: ["prefix"],
  });

export const etcdClusterSchema = z
  .object({
    kind: z.literal("etcd"),
    name: clusterName,
    /** Client URLs of the cluster's members (the JSON gateway answers on the client port). Tried in order. */
    endpoints: z.array(httpUrl).min(1, { message: "must list at least one client URL, e.g. http://127.0.0.1:2379" }),
    tls: etcdTlsSchema.optional(),
    /** etcd's own authentication (`etcdctl auth enable`): a user with read access to the prefixes. */
    user: z.string().min(1).optional(),
    password: z.string().min(1).optional(),
    /** A file holding the password, read at start-up (for mounted secrets). */
    passwordFile: z.string().min(1).optional(),
    prefixes: z.array(watchedPrefixSchema).min(1, { message: "must name at least one prefix to watch" }),
    requestsPerSecond: positiveInt(1, 100_000).default(DEFAULT_REQUESTS_PER_SECOND),
    discoveryIntervalMs: positiveInt(1_000, 86_400_000).default(DEFAULT_DISCOVERY_INTERVAL_MS),
    pollIntervalMs: positiveInt(100, 3_600_000).optional(),
    requestTimeoutMs: positiveInt(100, 120_000).default(DEFAULT_REQUEST_TIMEOUT_MS),
  })
  .strict()
  .superRefine((config, ctx) => {
    if (config.password && config.passwordFile) ctx.addIssue({ code: "custom", message: "set password or passwordFile, not both", path: ["passwordFile"] });
    if (config.user && !config.password && !config.passwordFile) ctx.addIssue({ code: "custom", message: "needs password or passwordFile", path: ["user"] });
    if (!config.user && (config.password || config.passwordFile)) ctx.addIssue({ code: "custom", message: "is required with a password", path: ["user"] });
    if (config.tls && config.endpoints.some((url) => url.startsWith("http:"))) {
      ctx.addIssue({ code: "custom", message: "is set but an endpoint is http://: use https:// endpoints with TLS", path: ["tls"] });
    }
    const seen = new Set<string>();
    config.prefixes.forEach((watched, index) => {
      if (seen.has(watched.prefix)) ctx.addIssue({ code: "custom", message: `duplicate prefix "${watched.prefix}"`, path: ["prefixes", index, "prefix"] });
      seen.add(watched.prefix);
    });
  });

export type EtcdClusterInput = z.input<typeof etcdClusterSchema>;
export type EtcdClusterConfig = z.output<typeof etcdClusterSchema>;
export type EtcdWatchedPrefix = EtcdClusterConfig["prefixes"][number];
export type EtcdLayout = z.output<typeof etcdLayoutSchema>;

/**
 * Parses one etcd source, throwing lib/config.ts's one-line ConfigError:
 * `Invalid configuration: <root>.<field> <message> (got "x")`; a password is never repeated.
 */
export function parseEtcdClusterConfig(input: unknown, root = "cluster"): EtcdClusterConfig {
  const parsed = etcdClusterSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new ConfigError(describeConfigIssue(root, input, parsed.error));
}
