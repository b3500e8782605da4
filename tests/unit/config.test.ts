import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { describe, expect, it } from "vitest";

import { ConfigError, loadConfig } from "@/lib/config";

function expectConfigError(env: Record<string, string>, pattern: RegExp): void {
  let error: unknown;
  try {
    loadConfig(env);
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(ConfigError);
  const message = (error as Error).message;
  expect(message).toMatch(pattern);
  expect(message).not.toContain("\n");
}

describe("loadConfig", () => {
  it("starts with no configuration at all: embedded database, no clusters", () => {
    const config = loadConfig({});
    expect(config.databaseUrl).toBeNull();
    expect(config.clusters).toEqual([]);
    expect(config.port).toBe(3000);
    expect(config.embeddedPostgresPort).toBe(54329);
  });

  it("reads the producers' hashing scheme per topic, JavaStringHash when unset, and refuses anything else naming the topic", () => {
    expect(loadConfig({}).violations.producerRouting).toEqual({});
    const topic = "persistent://acme/orders/events";
    expect(loadConfig({ BATON_PRODUCER_ROUTING: JSON.stringify({ [topic]: "Murmur3_32Hash" }) }).violations.producerRouting).toEqual({
      [topic]: "Murmur3_32Hash",
    });
    expectConfigError({ BATON_PRODUCER_ROUTING: JSON.stringify({ [topic]: "Murmur3" }) }, /BATON_PRODUCER_ROUTING.*persistent:\/\/acme\/orders\/events/);
    expectConfigError({ BATON_PRODUCER_ROUTING: JSON.stringify({ "orders-events": "JavaStringHash" }) }, /BATON_PRODUCER_ROUTING.*full topic name/);
    expectConfigError({ BATON_PRODUCER_ROUTING: "{not json" }, /BATON_PRODUCER_ROUTING is not valid JSON/);
  });

  it("reads when a finding ends: one TTL by default, or a number of seconds, and refuses anything else", () => {
    expect(loadConfig({}).board.recoveredAfterMs).toBeNull();
    expect(loadConfig({ BATON_RECOVERED_AFTER_SECONDS: "ttl" }).board.recoveredAfterMs).toBeNull();
    expect(loadConfig({ BATON_RECOVERED_AFTER_SECONDS: "60" }).board.recoveredAfterMs).toBe(60_000);
    expectConfigError({ BATON_RECOVERED_AFTER_SECONDS: "0" }, /BATON_RECOVERED_AFTER_SECONDS/);
    expectConfigError({ BATON_RECOVERED_AFTER_SECONDS: "a minute" }, /BATON_RECOVERED_AFTER_SECONDS/);
  });

  it("treats empty variables as unset", () => {
    expect(loadConfig({ DATABASE_URL: "", PORT: "" }).databaseUrl).toBeNull();
  });

  it("reads one cluster from BATON_PULSAR_ADMIN_URL, trailing slash removed, everything in scope", () => {
    const config = loadConfig({ BATON_PULSAR_ADMIN_URL: "http://127.0.0.1:8080/", BATON_PULSAR_TOKEN: "t0k", BATON_POLL_INTERVAL_MS: "2000" });
    expect(config.clusters).toHaveLength(1);
    expect(config.clusters[0]).toMatchObject({ name: "local", adminUrl: "http://127.0.0.1:8080", token: "t0k", pollIntervalMs: 2000, requestsPerSecond: 50 });
    expect(config.clusters[0]).toMatchObject({ kind: "pulsar", scope: { everything: true } });
  });

  it("reads clusters from BATON_CLUSTERS with scope, TLS and per-cluster settings", () => {
    const config = loadConfig({
      BATON_CLUSTERS: JSON.stringify([
        {
          name: "prod-eu",
          adminUrl: "https://pulsar.example:8443",
          tls: { rejectUnauthorized: false },
          scope: { namespaces: ["acme/orders"], topics: ["persistent://acme/users/events-*"] },
          pollIntervalMs: 10000,
          requestsPerSecond: 20,
        },
      ]),
    });
    expect(config.clusters[0]).toMatchObject({
      name: "prod-eu",
      pollIntervalMs: 10000,
      requestsPerSecond: 20,
      tls: { rejectUnauthorized: false },
      scope: { everything: false, namespaces: ["acme/orders"], topics: ["persistent://acme/users/events-*"] },
    });
  });

  it("reads clusters and a token file from BATON_CONFIG_FILE", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "baton-config-"));
    writeFileSync(path.join(dir, "token"), "secret-token\n");
    writeFileSync(path.join(dir, "baton.json"), JSON.stringify({ clusters: [{ name: "a", adminUrl: "http://a:8080", tokenFile: path.join(dir, "token") }] }));
    try {
      const config = loadConfig({ BATON_CONFIG_FILE: path.join(dir, "baton.json") });
      expect(config.clusters[0]).toMatchObject({ name: "a", token: "secret-token" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [{ DATABASE_URL: "mysql://x" }, /^Invalid configuration: DATABASE_URL must be a postgresql:\/\/.* \(got "mysql:\/\/x"\)$/],
    [{ PORT: "http" }, /^Invalid configuration: PORT .*\(got "http"\)$/],
    [{ PORT: "70000" }, /^Invalid configuration: PORT .*65535/],
    [{ BATON_EMBEDDED_PG_PORT: "80" }, /BATON_EMBEDDED_PG_PORT/],
    [{ BATON_LOG_LEVEL: "loud" }, /BATON_LOG_LEVEL/],
    [{ BATON_POLL_INTERVAL_MS: "10" }, /BATON_POLL_INTERVAL_MS/],
    [{ BATON_PULSAR_ADMIN_URL: "pulsar://127.0.0.1:6650" }, /^Invalid configuration: BATON_PULSAR_ADMIN_URL must be an http:\/\/ or https:\/\/ URL/],
    [{ BATON_CLUSTERS: "{not json" }, /^Invalid configuration: BATON_CLUSTERS is not valid JSON/],
    [{ BATON_CLUSTERS: "{}" }, /^Invalid configuration: BATON_CLUSTERS /],
    [
      { BATON_CLUSTERS: '[{"name":"a","adminUrl":"ftp://x"}]' },
      /^Invalid configuration: BATON_CLUSTERS\[0\]\.adminUrl must be an http:\/\/ or https:\/\/ URL \(got "ftp:\/\/x"\)$/,
    ],
    [{ BATON_CLUSTERS: '[{"adminUrl":"http://x"}]' }, /^Invalid configuration: BATON_CLUSTERS\[0\]\.name /],
    [{ BATON_CLUSTERS: '[{"name":"a","adminUrl":"http://x","pollIntervalMs":"soon"}]' }, /BATON_CLUSTERS\[0\]\.pollIntervalMs/],
    [
      { BATON_CLUSTERS: '[{"name":"a","adminUrl":"http://x","scope":{"namespaces":["nope"]}}]' },
      /BATON_CLUSTERS\[0\]\.scope\.namespaces\[0\] must be tenant\/namespace/,
    ],
    [{ BATON_CLUSTERS: '[{"name":"a","adminUrl":"http://x","colour":"red"}]' }, /BATON_CLUSTERS\[0\].*unknown key "colour"/],
    [
      { BATON_CLUSTERS: '[{"name":"a","adminUrl":"http://x","token":"t","tokenFile":"/f"}]' },
      /BATON_CLUSTERS\[0\]\.tokenFile set token or tokenFile, not both/,
    ],
    [{ BATON_CLUSTERS: '[{"name":"a","adminUrl":"http://x"},{"name":"a","adminUrl":"http://y"}]' }, /BATON_CLUSTERS\[1\]\.name duplicate cluster name "a"/],
    [
      { BATON_CLUSTERS: '[{"name":"a","adminUrl":"http://x","consumerSignal":"sometimes"}]' },
      /^Invalid configuration: BATON_CLUSTERS\[0\]\.consumerSignal must be "auto" or "off"/,
    ],
    [
      { BATON_CLUSTERS: '[{"name":"a","adminUrl":"http://x","consumerSignalIntervalMs":100}]' },
      /^Invalid configuration: BATON_CLUSTERS\[0\]\.consumerSignalIntervalMs /,
    ],
    [{ BATON_CLUSTERS: '[{"name":"local","adminUrl":"http://x"}]', BATON_PULSAR_ADMIN_URL: "http://y" }, /cluster "local" is configured twice/],
    [
      { BATON_CONFIG_FILE: "/nonexistent/baton.json" },
      /^Invalid configuration: BATON_CONFIG_FILE names a file that cannot be read: \/nonexistent\/baton.json \(ENOENT\)$/,
    ],
    [
      { BATON_CLUSTERS: '[{"kind":"consul","name":"z"}]' },
      /^Invalid configuration: BATON_CLUSTERS\[0\]\.kind must be one of "pulsar", "redis", "zookeeper", "etcd", "dynamodb", "database" \(got "consul"\)$/,
    ],
    [{ BATON_CLUSTERS: '[{"kind":"zookeeper","name":"z","paths":[{"path":"/l"}]}]' }, /^Invalid configuration: BATON_CLUSTERS\[0\]\.connectString /],
    [
      { BATON_CLUSTERS: '[{"kind":"zookeeper","name":"z","connectString":"zk1:2181","paths":[{"path":"locks"}]}]' },
      /^Invalid configuration: BATON_CLUSTERS\[0\]\.paths\[0\]\.path must be an absolute ZooKeeper path/,
    ],
    [
      { BATON_CLUSTERS: '[{"kind":"zookeeper","name":"z","connectString":"zk1:2181","paths":[{"path":"/l"}],"digestFile":"/nonexistent/zk"}]' },
      /^Invalid configuration: BATON_CLUSTERS\[0\]\.digestFile names a file that cannot be read: \/nonexistent\/zk \(ENOENT\)$/,
    ],
    [
      { BATON_CLUSTERS: redis({ patterns: [{ match: "*" }] }) },
      /^Invalid configuration: BATON_CLUSTERS\[0\]\.patterns\[0\]\.match matches every key.* \(got "\*"\)$/,
    ],
    [
      { BATON_CLUSTERS: redis({ patterns: [{ match: "lock:*", holderPattern: "(unclosed" }] }) },
      /^Invalid configuration: BATON_CLUSTERS\[0\]\.patterns\[0\]\.holderPattern is not a valid regular expression/,
    ],
    [
      { BATON_CLUSTERS: redis({ patterns: [{ match: "lock:*", holderPattern: "^([^:]+):" }] }) },
      /BATON_CLUSTERS\[0\]\.patterns\[0\]\.holderPattern must have a named group `holder`/,
    ],
    [
      { BATON_CLUSTERS: redis({ url: undefined, urls: ["redis://127.0.0.1:7001", "redis://127.0.0.1:7002"] }) },
      /^Invalid configuration: BATON_CLUSTERS\[0\]\.urls must list 3 or 5 independent masters for a Redlock group/,
    ],
    [{ BATON_CLUSTERS: redis({ url: "http://127.0.0.1:6379" }) }, /^Invalid configuration: BATON_CLUSTERS\[0\]\.url /],
    [{ BATON_CLUSTERS: redis({ patterns: [] }) }, /BATON_CLUSTERS\[0\]\.patterns must name at least one lock pattern/],
    [{ BATON_CLUSTERS: redis({ adminUrl: "http://x" }) }, /BATON_CLUSTERS\[0\].*unknown key "adminUrl"/],
    // A secret in the wrong form is named, never repeated.
    [{ BATON_CLUSTERS: redis({ password: ["s3cret-value"] }) }, /^Invalid configuration: BATON_CLUSTERS\[0\]\.password .*\(got a value that is not shown\)$/],
  ])("rejects %j with one line naming the variable", (env, pattern) => {
    expectConfigError(env, pattern);
  });

  it("reads a Redis cluster beside a Pulsar one, and a Redlock group of three masters", () => {
    const config = loadConfig({
      BATON_POLL_INTERVAL_MS: "1500",
      BATON_CLUSTERS: JSON.stringify([
        { name: "pulsar-eu", adminUrl: "http://127.0.0.1:8080" },
        {
          kind: "redis",
          name: "locks",
          url: "redis://127.0.0.1:6379",
          patterns: [
            { match: "lock:*", holderPattern: "^(?<holder>[^:]+):" },
            { match: "{app}:leader", layout: "redisson", mustBeHeld: true },
          ],
        },
        {
          kind: "redis",
          name: "scheduler",
          urls: ["redis://127.0.0.1:7001", "redis://127.0.0.1:7002", "redis://127.0.0.1:7003"],
          patterns: [{ match: "scheduler:leader" }],
        },
      ]),
    });
    expect(config.clusters.map((c) => [c.name, c.kind, c.pollIntervalMs])).toEqual([
      ["pulsar-eu", "pulsar", 1500],
      ["locks", "redis", 1500],
      ["scheduler", "redis", 1500],
    ]);
    expect(config.clusters[1]).toMatchObject({
      patterns: [
        { match: "lock:*", layout: "token", mustBeHeld: false },
        { match: "{app}:leader", layout: "redisson", mustBeHeld: true },
      ],
    });
  });

  it("refuses an ingest topic on a Redis cluster", () => {
    expectConfigError(
      { BATON_CLUSTERS: redis({}), BATON_INGEST_TOPIC: "persistent://a/b/c" },
      /^Invalid configuration: BATON_INGEST_TOPIC_CLUSTER must name a Pulsar cluster \(got "locks", of kind "redis"\)$/,
    );
  });
});

function redis(overrides: Record<string, unknown>): string {
  return JSON.stringify([{ kind: "redis", name: "locks", url: "redis://127.0.0.1:6379", patterns: [{ match: "lock:*" }], ...overrides }]);
}
