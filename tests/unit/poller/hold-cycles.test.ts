import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { keepEnding, openHoldCycles } from "@/lib/poller/hold-cycles";
import type { HoldHint, HoldHintKind, HoldObservation } from "@/lib/poller/contract/hold-observation";
import type { HoldReadError, HoldSource, LockRef } from "@/lib/poller/contract/hold-source";

// The shared hold cycles' scheduling and gap rules, with the clock and the source in hand. The
// real sources are tested against their real servers (tests/integration/poller/redis-locks.test.ts);
// here the source is a table of keys, so each rule can be driven exactly.

const T0 = Date.parse("2026-11-22T10:00:00.000Z");
const DISCOVERY_MS = 60_000;
const POLL_MS = 1_000;

type Table = Map<string, { token: string; ttlMs: number } | null>;

function tableSource(table: Table, options: { isDown?: () => boolean } = {}) {
  const reads: string[][] = [];
  let onHints: ((hints: HoldHint[]) => void) | null = null;
  const source: HoldSource = {
    async discover() {
      const keys = [...table.entries()].filter(([, value]) => value !== null).map(([key]): LockRef => ({ key, pattern: "lock:*" }));
      return options.isDown?.() ? { keys: [], errors: [{ message: "connection refused" }], isComplete: false } : { keys, errors: [], isComplete: true };
    },
    async observe(keys) {
      reads.push(keys.map((k) => k.key));
      if (options.isDown?.()) return { observations: [], errors: keys.map((k): HoldReadError => ({ key: k.key, message: "connection refused" })) };
      const observedAt = new Date(Date.now()).toISOString();
      const observations = keys.map((k): HoldObservation => {
        const value = table.get(k.key) ?? null;
        return {
          resourceKey: k.key,
          pattern: k.pattern,
          holder: value === null ? null : value.token.split(":")[0]!,
          holderToken: value?.token ?? null,
          expiresAt: value === null ? null : new Date(Date.now() + value.ttlMs).toISOString(),
          ttlMs: value?.ttlMs ?? null,
          waiters: [],
          observedAt,
          isSplit: false,
          details: {},
        };
      });
      return { observations, errors: [] };
    },
    patternOf: (key) => (key.startsWith("lock:") ? "lock:*" : null),
    async watch(hints) {
      onHints = hints;
      return { mode: "tracking", stop: async () => {} };
    },
    takeRequestCount: () => 0,
    close: async () => {},
  };
  return {
    source,
    reads,
    hint: (key: string, kind: HoldHintKind, event: string | null) => onHints?.([{ key, kind, event, at: new Date(Date.now()).toISOString() }]),
  };
}

async function cycle(cycles: Awaited<ReturnType<typeof openHoldCycles>>) {
  const result = await cycles.run();
  cycles.commit(result);
  return result;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(T0);
});
afterEach(() => vi.useRealTimers());

describe("openHoldCycles", () => {
  it("reads only the signalled keys between full reads, and tells a release hint as a release", async () => {
    const table: Table = new Map([
      ["lock:a", { token: "pod-a:1", ttlMs: 30_000 }],
      ["lock:b", { token: "pod-b:1", ttlMs: 30_000 }],
    ]);
    const { source, reads, hint } = tableSource(table);
    const cycles = await openHoldCycles(source, [], { resourceKind: "REDIS_LOCK", discoveryIntervalMs: DISCOVERY_MS, pollIntervalMs: POLL_MS });
    const first = await cycle(cycles);
    expect(reads.at(-1)!.sort()).toEqual(["lock:a", "lock:b"]);
    // The first cycle discovers (and says how long that took); a read of signalled keys does not.
    expect(first.discoveryMs).toBeGreaterThanOrEqual(0);
    vi.setSystemTime(T0 + 200);
    table.set("lock:a", null);
    hint("lock:a", "release", "del");
    const result = await cycle(cycles);
    expect(result.discoveryMs).toBeNull();
    expect(reads.at(-1)).toEqual(["lock:a"]);
    expect(result.changes).toEqual([
      expect.objectContaining({ resourceKey: "lock:a", kind: "HOLDER_LOST", ending: "RELEASED", details: expect.objectContaining({ hint: "del" }) }),
    ]);
  });

  it("keeps an ending hint over the next holder's writes until the read: the release, not a takeover", async () => {
    const table: Table = new Map([["lock:a", { token: "pod-a:1", ttlMs: 30_000 }]]);
    const { source, hint } = tableSource(table);
    const cycles = await openHoldCycles(source, [], { resourceKind: "REDIS_LOCK", discoveryIntervalMs: DISCOVERY_MS, pollIntervalMs: POLL_MS });
    await cycle(cycles);
    vi.setSystemTime(T0 + 200);
    table.set("lock:a", { token: "pod-b:2", ttlMs: 30_000 });
    hint("lock:a", "release", "del");
    hint("lock:a", "change", "set");
    hint("lock:a", "change", null);
    const result = await cycle(cycles);
    expect(result.changes).toEqual([
      expect.objectContaining({ kind: "HOLDER_CHANGED", ending: "RELEASED", details: expect.objectContaining({ hint: "del" }) }),
    ]);
  });

  it("without an ending hint, a holder replaced before its expiry was taken over", async () => {
    const table: Table = new Map([["lock:a", { token: "pod-a:1", ttlMs: 30_000 }]]);
    const { source, hint } = tableSource(table);
    const cycles = await openHoldCycles(source, [], { resourceKind: "REDIS_LOCK", discoveryIntervalMs: DISCOVERY_MS, pollIntervalMs: POLL_MS });
    await cycle(cycles);
    vi.setSystemTime(T0 + 200);
    table.set("lock:a", { token: "pod-b:2", ttlMs: 30_000 });
    hint("lock:a", "change", "set");
    const result = await cycle(cycles);
    expect(result.changes).toEqual([
      expect.objectContaining({ kind: "HOLDER_CHANGED", ending: "TAKEN_OVER", details: expect.objectContaining({ hint: "set" }) }),
    ]);
  });

  it("asks the source, after the read, whether the holders of ended holds live on, and only for those: a session gone well before its deadline was closed (released), not taken over", async () => {
    const table: Table = new Map([
      ["lock:a", { token: "0x1/a", ttlMs: 30_000 }],
      ["lock:b", { token: "0x2/b", ttlMs: 30_000 }],
      ["lock:c", { token: "0x3/c", ttlMs: 30_000 }],
    ]);
    const { source } = tableSource(table);
    const asked: string[][] = [];
    const liveness = new Map([
      ["0x1/a", "gone" as const],
      ["0x2/b", "alive" as const],
    ]);
    source.checkHolders = async (tokens) => {
      asked.push(tokens);
      return new Map(tokens.flatMap((token) => (liveness.has(token) ? [[token, liveness.get(token)!] as const] : [])));
    };
    const cycles = await openHoldCycles(source, [], { resourceKind: "ZOOKEEPER_LOCK", discoveryIntervalMs: DISCOVERY_MS, pollIntervalMs: POLL_MS });
    await cycle(cycles);
    expect(asked).toEqual([]);
    vi.setSystemTime(T0 + POLL_MS);
    table.set("lock:a", { token: "0x4/a2", ttlMs: 30_000 });
    table.set("lock:b", { token: "0x5/b2", ttlMs: 30_000 });
    const result = await cycle(cycles);
    expect(asked).toEqual([["0x1/a", "0x2/b"]]);
    expect(result.changes.map((c) => [c.resourceKey, c.ending])).toEqual([
      ["lock:a", "RELEASED"],
      ["lock:b", "TAKEN_OVER"],
    ]);
  });

  it("a source that fails to say leaves the ending to the clock and the hints", async () => {
    const table: Table = new Map([["lock:a", { token: "pod-a:1", ttlMs: 30_000 }]]);
    const { source } = tableSource(table);
    source.checkHolders = async () => {
      throw new Error("dump refused");
    };
    const cycles = await openHoldCycles(source, [], { resourceKind: "REDIS_LOCK", discoveryIntervalMs: DISCOVERY_MS, pollIntervalMs: POLL_MS });
    await cycle(cycles);
    vi.setSystemTime(T0 + POLL_MS);
    table.set("lock:a", { token: "pod-b:2", ttlMs: 30_000 });
    const result = await cycle(cycles);
    expect(result.changes).toEqual([expect.objectContaining({ kind: "HOLDER_CHANGED", ending: "TAKEN_OVER" })]);
  });

  it("keeps reading a lock released a moment ago, also when discovery no longer finds it, so its next holder is seen", async () => {
    const table: Table = new Map([["lock:job", { token: "pod-a:1", ttlMs: 30_000 }]]);
    const { source } = tableSource(table);
    const cycles = await openHoldCycles(source, [], { resourceKind: "REDIS_LOCK", discoveryIntervalMs: DISCOVERY_MS, pollIntervalMs: POLL_MS });
    await cycle(cycles);
    vi.setSystemTime(T0 + DISCOVERY_MS - 5_000);
    table.set("lock:job", null);
    await cycle(cycles); // the release
    vi.setSystemTime(T0 + DISCOVERY_MS + 1_000);
    const atDiscovery = await cycle(cycles); // discovery: the key is missing, but was held 6 s ago
    expect(atDiscovery.states.states.find((s) => s.resourceKey === "lock:job")).toMatchObject({ goneAt: null });
    vi.setSystemTime(T0 + DISCOVERY_MS + 2_000);
    table.set("lock:job", { token: "pod-b:2", ttlMs: 30_000 });
    const next = await cycle(cycles);
    expect(next.changes).toEqual([expect.objectContaining({ kind: "HOLDER_APPEARED", toHolder: "pod-b" })]);
  });

  it("forgets a free lock that discovery no longer finds after a discovery interval without a holder", async () => {
    const table: Table = new Map([["lock:once", { token: "pod-a:1", ttlMs: 30_000 }]]);
    const { source, reads } = tableSource(table);
    const cycles = await openHoldCycles(source, [], { resourceKind: "REDIS_LOCK", discoveryIntervalMs: DISCOVERY_MS, pollIntervalMs: POLL_MS });
    await cycle(cycles);
    vi.setSystemTime(T0 + 1_000);
    table.set("lock:once", null);
    await cycle(cycles);
    vi.setSystemTime(T0 + 2 * DISCOVERY_MS + 2_000);
    const atDiscovery = await cycle(cycles);
    expect(atDiscovery.states.states).toEqual([
      expect.objectContaining({ resourceKey: "lock:once", goneAt: new Date(T0 + 2 * DISCOVERY_MS + 2_000).toISOString() }),
    ]);
    const readsBefore = reads.length;
    vi.setSystemTime(T0 + 2 * DISCOVERY_MS + 3_000);
    const after = await cycle(cycles);
    expect(reads.length).toBe(readsBefore);
    expect(after.targetCount).toBe(0);
  });

  it("a source that cannot be read makes its locks stale with their holders, never free, and records no change", async () => {
    let isDown = false;
    const table: Table = new Map([["lock:a", { token: "pod-a:1", ttlMs: 30_000 }]]);
    const { source } = tableSource(table, { isDown: () => isDown });
    const cycles = await openHoldCycles(source, [], { resourceKind: "REDIS_LOCK", discoveryIntervalMs: DISCOVERY_MS, pollIntervalMs: POLL_MS });
    await cycle(cycles);
    isDown = true;
    vi.setSystemTime(T0 + 2_000);
    const down = await cycle(cycles);
    expect(down.changes).toEqual([]);
    expect(down.states.states).toEqual([
      expect.objectContaining({ holder: "pod-a", staleSince: new Date(T0 + 2_000).toISOString(), lastError: "connection refused" }),
    ]);
    isDown = false;
    vi.setSystemTime(T0 + 4_000);
    const back = await cycle(cycles);
    expect(back.changes).toEqual([]);
    expect(back.states.states).toEqual([expect.objectContaining({ holder: "pod-a", staleSince: null })]);
  });
});

describe("keepEnding", () => {
  const at = new Date(T0).toISOString();
  const of = (kind: HoldHintKind, event: string | null): HoldHint => ({ key: "lock:a", kind, event, at });

  it("keeps the first ending (release or expiry) against every later hint", () => {
    expect(keepEnding(of("release", "del"), of("change", "set"))).toEqual(of("release", "del"));
    expect(keepEnding(of("expiry", "expired"), of("release", "del"))).toEqual(of("expiry", "expired"));
    expect(keepEnding(of("release", "DELETE"), null)).toEqual(of("release", "DELETE"));
  });

  it("until an ending, takes the latest hint; one naming no event does not replace one naming it", () => {
    expect(keepEnding(of("change", "set"), of("release", null))).toEqual(of("release", null));
    expect(keepEnding(of("change", "set"), of("change", "expire"))).toEqual(of("change", "expire"));
    expect(keepEnding(of("change", "set"), of("change", null))).toEqual(of("change", "set"));
    expect(keepEnding(undefined, of("change", null))).toEqual(of("change", null));
    expect(keepEnding(null, undefined)).toBeNull();
  });
});
