import { describe, expect, it } from "vitest";

import { loadConfig } from "@/lib/config";
import { ConfigError } from "@/lib/config-files";
import { DEFAULT_REQUESTS_PER_SECOND, parseEtcdClusterConfig } from "@/lib/sources/etcd/etcd-config";

const valid = { kind: "etcd", name: "elections", endpoints: ["http://127.0.0.1:2379"], prefixes: [{ prefix: "elections/" }] };

function errorOf(input: unknown): string {
  try {
    parseEtcdClusterConfig(input, "BATON_CLUSTERS[1]");
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a configuration error");
}

describe("parseEtcdClusterConfig", () => {
  it("never repeats a password in its error", () => {
    const message = errorOf({ ...valid, user: "u", password: ["hunter2-secret"] });
    expect(message).toMatch(/^Invalid configuration: BATON_CLUSTERS\[1\]\.password .*\(got a value that is not shown\)$/);
    expect(message).not.toContain("hunter2");
  });

  it("fills the defaults", () => {
    expect(parseEtcdClusterConfig(valid)).toMatchObject({
      requestsPerSecond: DEFAULT_REQUESTS_PER_SECOND,
      discoveryIntervalMs: 60_000,
      requestTimeoutMs: 5_000,
      prefixes: [{ prefix: "elections/", layout: "auto", mustBeHeld: false }],
    });
  });

  it("accepts several members, TLS, a user with a password file and every layout", () => {
    const config = parseEtcdClusterConfig({
      ...valid,
      endpoints: ["https://etcd-0:2379/", "https://etcd-1:2379"],
      tls: { caFile: "/ca.pem", certFile: "/c.pem", keyFile: "/k.pem" },
      user: "baton",
      passwordFile: "/run/secrets/etcd",
      prefixes: ["go-election", "go-mutex", "etcd3-election", "etcd3-lock", "auto"].map((layout) => ({ prefix: `${layout}/`, layout, mustBeHeld: true })),
    });
    expect(config.endpoints).toEqual(["https://etcd-0:2379", "https://etcd-1:2379"]);
    expect(config.prefixes.map((p) => p.layout)).toEqual(["go-election", "go-mutex", "etcd3-election", "etcd3-lock", "auto"]);
  });

  const cases: { name: string; input: unknown; message: string }[] = [
    {
      name: "no endpoints",
      input: { ...valid, endpoints: [] },
      message: "BATON_CLUSTERS[1].endpoints must list at least one client URL, e.g. http://127.0.0.1:2379 (got [])",
    },
    {
      name: "an endpoint that is no URL",
      input: { ...valid, endpoints: ["127.0.0.1:2379"] },
      message: 'BATON_CLUSTERS[1].endpoints[0] must be an http:// or https:// URL (got "127.0.0.1:2379")',
    },
    {
      name: "an empty prefix",
      input: { ...valid, prefixes: [{ prefix: "" }] },
      message: "BATON_CLUSTERS[1].prefixes[0].prefix must not be empty: Baton would read every key of the cluster",
    },
    { name: "no prefixes", input: { ...valid, prefixes: [] }, message: "BATON_CLUSTERS[1].prefixes must name at least one prefix to watch (got [])" },
    { name: "an unknown layout", input: { ...valid, prefixes: [{ prefix: "x/", layout: "zookeeper" }] }, message: "BATON_CLUSTERS[1].prefixes[0].layout " },
    {
      name: "a duplicate prefix",
      input: { ...valid, prefixes: [{ prefix: "x/" }, { prefix: "x/" }] },
      message: 'BATON_CLUSTERS[1].prefixes[1].prefix duplicate prefix "x/"',
    },
    {
      name: "password and passwordFile",
      input: { ...valid, user: "u", password: "p", passwordFile: "/f" },
      message: "BATON_CLUSTERS[1].passwordFile set password or passwordFile, not both",
    },
    { name: "a user without a password", input: { ...valid, user: "u" }, message: "BATON_CLUSTERS[1].user needs password or passwordFile" },
    { name: "a password without a user", input: { ...valid, password: "p" }, message: "BATON_CLUSTERS[1].user is required with a password (got nothing)" },
    { name: "TLS over http://", input: { ...valid, tls: { caFile: "/ca.pem" } }, message: "BATON_CLUSTERS[1].tls is set but an endpoint is http://" },
    {
      name: "a client cert without its key",
      input: { ...valid, endpoints: ["https://e:2379"], tls: { certFile: "/c.pem" } },
      message: "BATON_CLUSTERS[1].tls.keyFile set certFile and keyFile together",
    },
    { name: "a budget of zero", input: { ...valid, requestsPerSecond: 0 }, message: "BATON_CLUSTERS[1].requestsPerSecond " },
    { name: "a poll interval under 100 ms", input: { ...valid, pollIntervalMs: 10 }, message: "BATON_CLUSTERS[1].pollIntervalMs " },
    { name: "a discovery interval under a second", input: { ...valid, discoveryIntervalMs: 10 }, message: "BATON_CLUSTERS[1].discoveryIntervalMs " },
    { name: "an unknown key", input: { ...valid, url: "http://x" }, message: 'BATON_CLUSTERS[1] Unrecognized key: "url" (unknown key "url")' },
  ];
  it.each(cases)("rejects $name in one line naming the setting", ({ input, message }) => {
    const text = errorOf(input);
    expect(text.startsWith(`Invalid configuration: ${message}`)).toBe(true);
    expect(text).not.toContain("\n");
  });

  it("is one of the kinds lib/config.ts knows, with the same wording", () => {
    const config = loadConfig({ BATON_CLUSTERS: JSON.stringify([{ ...valid, pollIntervalMs: 700 }]) }).clusters[0]!;
    expect(config).toMatchObject({ kind: "etcd", pollIntervalMs: 700 });
    expect(() => loadConfig({ BATON_CLUSTERS: JSON.stringify([{ ...valid, prefixes: [{ prefix: "" }] }]) })).toThrow(
      /^Invalid configuration: BATON_CLUSTERS\[0\]\.prefixes\[0\]\.prefix must not be empty/,
    );
  });
});
