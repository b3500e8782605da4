import { describe, expect, it } from "vitest";

import type { HoldState } from "@/lib/poller/hold-state";
import { NO_HOLD_STATS } from "@/lib/poller/hold-state";
import {
  compareHoldRows,
  compareSubscriptionPartitionRows,
  digestText,
  flushIntervalMs,
  isMovingFiguresFlushDue,
  MOVING_FIGURES_FLUSH_MS,
  signSubscriptionPartitionRow,
} from "@/lib/poller/row-changes";
import { DYNAMODB_MOVING_DETAILS } from "@/lib/sources/dynamodb/lock-observation";
import { ETCD_MOVING_DETAILS } from "@/lib/sources/etcd/etcd-observation";
import { consumer, observation, stateFrom, T0, T1 } from "@/tests/unit/sources/pulsar/builders";

// Which states need their held_resource row written: the holder, consumers, ranges and gap
// fields always; the moving figures (backlog, rates, samples, a lock's TTL) on a slower cadence;
// the last observation never (it is derived from the cluster's latest full cycle).

const written = stateFrom(observation({ holder: "w1", consumers: [consumer("w1"), consumer("w2")] }), T0);

function hold(overrides: Partial<HoldState> = {}): HoldState {
  return {
    resourceKey: "lock:orders",
    pattern: "lock:*",
    holder: "pod-a",
    holderToken: "pod-a:1",
    expiresAt: "2026-11-22T10:00:30.000Z",
    ttlMs: 30_000,
    waiters: [],
    isSplit: false,
    details: { layout: "string" },
    holderSince: T0,
    lastObservedAt: T0,
    staleSince: null,
    lastError: null,
    lastErrorAt: null,
    goneAt: null,
    lastChangeAt: null,
    stats: NO_HOLD_STATS,
    ...overrides,
  };
}

describe("compareSubscriptionPartitionRows", () => {
  it.each([
    ["only the last observation moved", { lastObservedAt: T1 }, "same"],
    ["a failure repeated with the same error", { lastErrorAt: T1 }, "same"],
    ["the holder", { holder: "w2" }, "changed"],
    ["went stale", { staleSince: T1, lastError: "timeout", lastErrorAt: T1 }, "changed"],
    ["another error while stale", { lastError: "HTTP 500" }, "changed"],
    ["gone", { goneAt: T1 }, "changed"],
    ["a consumer left", { consumers: [consumer("w1")] }, "changed"],
    ["a consumer reconnected", { consumers: [consumer("w1"), consumer("w2", "2026-11-22T10:00:04.000Z")] }, "changed"],
    ["the type", { subscriptionType: "Exclusive" }, "changed"],
    ["the ranges", { hashRanges: { space: 65536, consumers: [{ consumer: "w1", ranges: [[0, 65535]] }] } }, "changed"],
    ["the backlog", { backlog: 12 }, "moving"],
    ["the rate", { msgRateOut: 250.5 }, "moving"],
    ["the samples", { recentSamples: [{ at: T1, backlog: 12, msgRateOut: 1, holder: "w1" }] }, "moving"],
    ["a consumer's rate and permits", { consumers: [{ ...consumer("w1"), msgRateOut: 99, availablePermits: 3 }, consumer("w2")] }, "moving"],
  ] as const)("%s: %s", (_what, overrides, expected) => {
    expect(compareSubscriptionPartitionRows(written, { ...written, ...overrides } as typeof written)).toBe(expected);
  });

  it("takes a still resource's minute sample, with the figures of the one before, as nothing to write", () => {
    const sample = { at: T0, backlog: 0, msgRateOut: 0, holder: "w1" };
    const before = { ...written, recentSamples: [sample] };
    expect(compareSubscriptionPartitionRows(before, { ...before, recentSamples: [sample, { ...sample, at: T1 }] })).toBe("same");
    expect(compareSubscriptionPartitionRows(before, { ...before, recentSamples: [sample, { ...sample, at: T1, backlog: 3 }] })).toBe("moving");
  });

  it("takes the same split listed in another order, or read back from jsonb with its keys reordered, as the same", () => {
    const split = {
      space: 65536,
      consumers: [
        { consumer: "w1", ranges: [[0, 32767]] as [number, number][] },
        { consumer: "w2", ranges: [[32768, 65535]] as [number, number][] },
      ],
    };
    const reordered = JSON.parse(JSON.stringify({ consumers: [...split.consumers].reverse(), space: 65536 }));
    expect(compareSubscriptionPartitionRows({ ...written, hashRanges: split }, { ...written, hashRanges: reordered })).toBe("same");
  });
});

describe("compareHoldRows", () => {
  it.each([
    ["only the last observation moved", { lastObservedAt: T1 }, "same"],
    ["the expiry read again a few milliseconds apart", { expiresAt: "2026-11-22T10:00:30.004Z" }, "moving"],
    ["the TTL left", { ttlMs: 25_000 }, "moving"],
    ["the reentrancy count", { details: { layout: "string", reentrancy: 2 } }, "changed"],
    ["a renewal moved the expiry", { expiresAt: "2026-11-22T10:00:40.000Z" }, "changed"],
    ["the holder's token", { holderToken: "pod-a:2" }, "changed"],
    ["a waiter", { waiters: ["pod-b"] }, "changed"],
    ["the stats", { stats: { ...NO_HOLD_STATS, nearExpiryCount: 1 } }, "changed"],
    ["went stale", { staleSince: T1, lastError: "refused", lastErrorAt: T1 }, "changed"],
    ["released", { holder: null, holderToken: null, expiresAt: null, ttlMs: null, lastChangeAt: T1 }, "changed"],
  ] as const)("%s: %s", (_what, overrides, expected) => {
    expect(compareHoldRows(hold(), hold(overrides as Partial<HoldState>))).toBe(expected);
  });

  it.each([
    ["DynamoDB's unmoved version age", DYNAMODB_MOVING_DETAILS, { versionUnchangedForMs: 0 }, { versionUnchangedForMs: 400 }],
    ["etcd's revision and lease seconds", ETCD_MOVING_DETAILS, { revision: 800, leaseTtlS: 60 }, { revision: 812, leaseTtlS: 41 }],
  ] as const)("the details a kind names as moving are moving figures (%s); named by no kind, they are a change", (_what, movingDetails, before, after) => {
    const written = hold({ details: { layout: "string", ...before } });
    const next = hold({ details: { layout: "string", ...after } });
    expect(compareHoldRows(written, next, movingDetails)).toBe("moving");
    expect(compareHoldRows(written, next)).toBe("changed");
  });

  it("takes stats and details read back from jsonb with their keys reordered as no change (at most a flush of the moving figures)", () => {
    const stats = JSON.parse(JSON.stringify({ longestHoldMs: 0, nearExpiryCount: 0, tenureMaxTtlMs: null }));
    const written = hold({ details: { layout: "string", masters: { a: "t1", b: "t1" } } });
    expect(compareHoldRows(written, hold({ stats, details: { masters: { b: "t1", a: "t1" }, layout: "string" } }))).not.toBe("changed");
  });
});

describe("isMovingFiguresFlushDue", () => {
  it("is due once per flush interval per resource", () => {
    const at = Date.parse(T0);
    let due = 0;
    let writtenAt = at;
    // A cycle a second for ten intervals: ten flushes, one per interval.
    for (let now = at + 1_000; now <= at + 10 * MOVING_FIGURES_FLUSH_MS; now += 1_000) {
      if (isMovingFiguresFlushDue("persistent://acme/orders/events|billing|0", writtenAt, now)) {
        due++;
        writtenAt = now;
      }
    }
    expect(due).toBe(10);
  });

  it("spreads a cluster's resources over the interval instead of flushing them all in one cycle", () => {
    const at = Date.parse(T0);
    const keys = Array.from({ length: 1_000 }, (_, i) => `persistent://acme/orders/t${i}|billing|0`);
    // Per cycle of a second, the share of the resources that are due.
    const perCycle: number[] = [];
    for (let now = at + 1_000; now <= at + MOVING_FIGURES_FLUSH_MS; now += 1_000) {
      perCycle.push(keys.filter((key) => isMovingFiguresFlushDue(key, now - 1_000, now)).length);
    }
    expect(perCycle.reduce((a, b) => a + b, 0)).toBe(1_000);
    expect(Math.max(...perCycle)).toBeLessThan(1_000 / 10);
  });
});

describe("flushIntervalMs", () => {
  it("is a minute for cycles of up to 20 s, and three cycles for longer ones", () => {
    expect(flushIntervalMs(null)).toBe(60_000);
    expect(flushIntervalMs(5_000)).toBe(60_000);
    expect(flushIntervalMs(50_000)).toBe(150_000);
  });
});

describe("a Key_Shared split's signature", () => {
  const split = (ranges: [number, number][][]) => ({ space: 65536, consumers: ranges.map((r, i) => ({ consumer: `w${i}`, ranges: r })) });

  it("tells apart one range moved by one hash, a range given to another consumer, and a consumer renamed", () => {
    const base = split([
      [
        [0, 100],
        [300, 400],
      ],
      [
        [101, 299],
        [401, 65535],
      ],
    ]);
    const variants = [
      split([
        [
          [0, 101],
          [300, 400],
        ],
        [
          [102, 299],
          [401, 65535],
        ],
      ]),
      split([
        [[0, 100]],
        [
          [101, 299],
          [300, 400],
          [401, 65535],
        ],
      ]),
      { ...base, consumers: [{ ...base.consumers[0]!, consumer: "w9" }, base.consumers[1]!] },
    ];
    const written = stateFrom(observation({ holder: null, consumers: [consumer("w0"), consumer("w1")] }), T0, { hashRanges: base });
    for (const hashRanges of variants) expect(compareSubscriptionPartitionRows(written, { ...written, hashRanges })).toBe("changed");
  });

  it("differs between 10,000 random splits", () => {
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0) % 65_536;
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const cuts = [next(), next(), next()].sort((a, b) => a - b);
      const s = split([
        [[0, cuts[0]!]],
        [[cuts[0]! + 1, cuts[1]!]],
        [
          [cuts[1]! + 1, cuts[2]!],
          [cuts[2]! + 1, 65535],
        ],
      ]);
      seen.add(JSON.stringify(s));
    }
    const signatures = new Set(
      [...seen].map(
        (text) => signSubscriptionPartitionRow(stateFrom(observation({ holder: null, consumers: [] }), T0, { hashRanges: JSON.parse(text) })).changed,
      ),
    );
    expect(signatures.size).toBe(seen.size);
  });
});

describe("digestText", () => {
  it("tells apart texts that differ in one character, at any place, or in length", () => {
    const base = `${"consumer-".repeat(30)}\u0001/10.0.0.1:6650\u00012026-11-25T03:00:00.000Z`;
    const variants = [
      base,
      `${base} `,
      base.slice(1),
      ...Array.from({ length: base.length }, (_, i) => base.slice(0, i) + String.fromCharCode(base.charCodeAt(i) ^ 1) + base.slice(i + 1)),
    ];
    expect(new Set(variants.map(digestText)).size).toBe(variants.length);
    expect(digestText(base)).toBe(digestText(`${base}`));
  });

  it("keeps what a row is remembered by small, whatever its consumers' names", () => {
    const longNames = [consumer(`w1-${"x".repeat(200)}`), consumer(`w2-${"y".repeat(200)}`)];
    const signature = signSubscriptionPartitionRow(stateFrom(observation({ holder: longNames[0]!.name, consumers: longNames }), T0));
    expect(signature.changed.length).toBeLessThanOrEqual(22);
    expect(signature.moving.length).toBeLessThanOrEqual(22);
  });
});
