import { describe, expect, it } from "vitest";
import { z } from "zod";

import {
  DEFAULT_COMMANDS_PER_SECOND,
  DEFAULT_SCAN_COUNT,
  parseRedisClusterConfig,
  RedisConfigError,
  redisClusterSchema,
} from "@/lib/sources/redis/redis-config";

const valid = { kind: "redis", name: "locks", url: "redis://127.0.0.1:6379", patterns: [{ match: "lock:*" }] };

function errorOf(input: unknown): string {
  try {
    parseRedisClusterConfig(input, "BATON_CLUSTERS[1]");
  } catch (error) {
    expect(error).toBeInstanceOf(RedisConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a configuration error");
}

describe("parseRedisClusterConfig", () => {
  it("fills the defaults", () => {
    const config = parseRedisClusterConfig(valid);
    expect(config).toMatchObject({
      commandsPerSecond: DEFAULT_COMMANDS_PER_SECOND,
      scanCount: DEFAULT_SCAN_COUNT,
      discoveryIntervalMs: 300_000,
      requestTimeoutMs: 5_000,
      cluster: false,
      patterns: [{ match: "lock:*", layout: "token", mustBeHeld: false }],
    });
  });

  it("accepts a Redlock group of 3 and of 5, TLS, a password file and a holder pattern", () => {
    const urls = ["redis://a:6379", "redis://b:6379", "rediss://c:6380/2"];
    expect(parseRedisClusterConfig({ ...valid, url: undefined, urls }).urls).toEqual(urls);
    expect(parseRedisClusterConfig({ ...valid, url: undefined, urls: [...urls, "redis://d", "redis://e"] }).urls).toHaveLength(5);
    const config = parseRedisClusterConfig({
      ...valid,
      url: "rediss://redis.internal:6380",
      passwordFile: "/run/secrets/redis",
      tls: { caFile: "/ca.pem" },
      patterns: [
        { match: "job-lock:prod:*", holderPattern: "@(?<holder>[^:]+):", mustBeHeld: true },
        { match: "{app}:leader", layout: "redisson" },
      ],
    });
    expect(config.tls).toEqual({ caFile: "/ca.pem", rejectUnauthorized: true });
    expect(config.patterns[1]).toMatchObject({ layout: "redisson" });
  });

  const cases: { name: string; input: unknown; message: string }[] = [
    {
      name: "a bare *",
      input: { ...valid, patterns: [{ match: "*" }] },
      message:
        'BATON_CLUSTERS[1].patterns[0].match matches every key: Baton would walk and read every key of the database; name the locks\' prefix, e.g. lock:* (got "*")',
    },
    { name: "a pattern of wildcards only", input: { ...valid, patterns: [{ match: "?*" }] }, message: "BATON_CLUSTERS[1].patterns[0].match matches every key" },
    {
      name: "an invalid regex",
      input: { ...valid, patterns: [{ match: "lock:*", holderPattern: "(?<holder>[a-z" }] },
      message: "BATON_CLUSTERS[1].patterns[0].holderPattern is not a valid regular expression",
    },
    {
      name: "a regex without a holder group",
      input: { ...valid, patterns: [{ match: "lock:*", holderPattern: "^(?<host>[^:]+)" }] },
      message: "BATON_CLUSTERS[1].patterns[0].holderPattern must have a named group `holder`",
    },
    {
      name: "a Redlock group of 2",
      input: { ...valid, url: undefined, urls: ["redis://a", "redis://b"] },
      message: "BATON_CLUSTERS[1].urls must list 3 or 5 independent masters for a Redlock group (a majority of an even group can tie) (got [",
    },
    {
      name: "a Redlock group of 4",
      input: { ...valid, url: undefined, urls: ["redis://a", "redis://b", "redis://c", "redis://d"] },
      message: "BATON_CLUSTERS[1].urls must list 3 or 5",
    },
    { name: "a single url in urls", input: { ...valid, url: undefined, urls: ["redis://a"] }, message: "for one master set url" },
    {
      name: "the same master twice",
      input: { ...valid, url: undefined, urls: ["redis://a", "redis://a", "redis://b"] },
      message: "BATON_CLUSTERS[1].urls lists the same master twice",
    },
    {
      name: "url and urls",
      input: { ...valid, urls: ["redis://a", "redis://b", "redis://c"] },
      message: "BATON_CLUSTERS[1].urls set url (one master) or urls (a Redlock group), not both",
    },
    { name: "neither url nor urls", input: { ...valid, url: undefined }, message: "BATON_CLUSTERS[1].url is required" },
    {
      name: "an http url",
      input: { ...valid, url: "http://127.0.0.1:6379" },
      message: 'BATON_CLUSTERS[1].url must be a redis:// or rediss:// URL (got "http://127.0.0.1:6379")',
    },
    { name: "a url with a path", input: { ...valid, url: "redis://host:6379/locks" }, message: "BATON_CLUSTERS[1].url may end only in a database number" },
    {
      name: "password and passwordFile",
      input: { ...valid, password: "x", passwordFile: "/p" },
      message: "BATON_CLUSTERS[1].passwordFile set password or passwordFile, not both",
    },
    { name: "no patterns", input: { ...valid, patterns: [] }, message: "BATON_CLUSTERS[1].patterns must name at least one lock pattern" },
    { name: "an unknown layout", input: { ...valid, patterns: [{ match: "lock:*", layout: "zset" }] }, message: "BATON_CLUSTERS[1].patterns[0].layout" },
    {
      name: "a duplicate pattern",
      input: { ...valid, patterns: [{ match: "lock:*" }, { match: "lock:*" }] },
      message: 'BATON_CLUSTERS[1].patterns[1].match duplicate pattern "lock:*"',
    },
    {
      name: "cluster with urls",
      input: { ...valid, url: undefined, urls: ["redis://a", "redis://b", "redis://c"], cluster: true },
      message: "BATON_CLUSTERS[1].cluster cannot be combined with urls",
    },
    {
      name: "a certificate without its key",
      input: { ...valid, tls: { certFile: "/c.pem" } },
      message: "BATON_CLUSTERS[1].tls.keyFile set certFile and keyFile together",
    },
    { name: "an unknown setting", input: { ...valid, host: "x" }, message: 'BATON_CLUSTERS[1] Unrecognized key: "host" (unknown key "host")' },
    { name: "a scanCount of 0", input: { ...valid, scanCount: 0 }, message: "BATON_CLUSTERS[1].scanCount" },
  ];

  it.each(cases)("rejects $name with one line naming the setting", ({ input, message }) => {
    const text = errorOf(input);
    expect(text.startsWith("Invalid configuration: BATON_CLUSTERS[1]")).toBe(true);
    expect(text).toContain(message);
    expect(text).not.toContain("\n");
  });

  it("plugs into a discriminated union on kind beside a Pulsar entry without kind", () => {
    const pulsar = z.object({ kind: z.literal("pulsar"), name: z.string(), adminUrl: z.string() }).strict();
    const withDefaultKind = z.preprocess(
      (value) => (value !== null && typeof value === "object" && !("kind" in value) ? { ...value, kind: "pulsar" } : value),
      z.discriminatedUnion("kind", [pulsar, redisClusterSchema]),
    );
    expect(withDefaultKind.parse({ name: "p", adminUrl: "http://x" })).toEqual({ kind: "pulsar", name: "p", adminUrl: "http://x" });
    expect(withDefaultKind.parse(valid)).toMatchObject({ kind: "redis", scanCount: DEFAULT_SCAN_COUNT });
    expect(withDefaultKind.safeParse({ ...valid, patterns: [{ match: "*" }] }).success).toBe(false);
  });
});
