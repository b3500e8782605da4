import { describe, expect, it } from "vitest";

import { ConfigError } from "@/lib/config-files";
import { SOURCE_KINDS } from "@/lib/sources/registry";
import { redisKind } from "@/lib/sources/redis/redis-kind";

// Each kind parses a raw entry with its own schema (`parseConfig(raw: unknown)`), so the
// configuration hands no kind an entry it has to cast.

describe("a kind's parseConfig", () => {
  it("parses with the kind's own schema and makes the entry ready (the poll interval defaulted)", () => {
    const config = redisKind.parseConfig(
      { kind: "redis", name: "redis-main", url: "redis://127.0.0.1:6379", patterns: [{ match: "lock:*" }] },
      "BATON_CLUSTERS[0]",
      5_000,
    );
    expect(config).toMatchObject({
      kind: "redis",
      name: "redis-main",
      pollIntervalMs: 5_000,
      commandsPerSecond: 1_000,
      patterns: [{ match: "lock:*", layout: "token", mustBeHeld: false }],
    });
  });

  it.each(SOURCE_KINDS.map((kind) => [kind.kind, kind] as const))(
    "%s: refuses a bad entry with a ConfigError naming the setting, never a stack of zod issues",
    (name, kind) => {
      const parse = () => kind.parseConfig({ kind: name, name: "bad name with spaces" }, "BATON_CLUSTERS[3]", 5_000);
      expect(parse).toThrow(ConfigError);
      expect(parse).toThrow(/^Invalid configuration: BATON_CLUSTERS\[3\]\.\w+ .+ \(got .+\)$/);
    },
  );
});
