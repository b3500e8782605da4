import { describe, expect, it } from "vitest";

import { markGone, markStale } from "@/lib/poller/mark-gaps";
import { detectChanges, diffConsumers } from "@/lib/sources/pulsar/detect-changes";
import { consumer, observation, stateFrom, T0, T1, T2 } from "@/tests/unit/sources/pulsar/builders";

const ctx = { pollAt: T1, isBrokerSide: false };

describe("detectChanges", () => {
  it("records nothing for a resource seen for the first time, and takes the holder's connection time as its start", () => {
    const obs = observation({ holder: "w1", consumers: [consumer("w1", "2026-11-22T08:00:00.000Z"), consumer("w2")] });
    const { changes, next } = detectChanges(undefined, obs, ctx);
    expect(changes).toEqual([]);
    expect(next).toMatchObject({ holder: "w1", holderSince: "2026-11-22T08:00:00.000Z", lastObservedAt: T1, staleSince: null });
  });

  it("records nothing when nothing changed", () => {
    const obs = observation({ holder: "w1", consumers: [consumer("w1"), consumer("w2")] });
    expect(detectChanges(stateFrom(obs, T0), obs, ctx).changes).toEqual([]);
  });

  it("records a leader change from -> to with the interval it happened in", () => {
    const before = observation({ holder: "w1", consumers: [consumer("w1"), consumer("w2")] });
    const after = observation({ holder: "w2", consumers: [consumer("w2")] });
    const { changes, next } = detectChanges(stateFrom(before, T0), after, ctx);
    expect(changes).toEqual([
      expect.objectContaining({ kind: "HOLDER_CHANGED", fromHolder: "w1", toHolder: "w2", oldSeenAt: T0, newSeenAt: T1, cause: "CLIENT", isDuringGap: false }),
    ]);
    // w2 was a standby: it connected before the interval, so the poll is the best bound.
    expect(next.holderSince).toBe(T1);
    expect(changes[0]!.details).toMatchObject({ removed: ["w1"], added: [] });
  });

  it("takes a new holder's connection time when it connected inside the interval", () => {
    const before = observation({ holder: "w1", consumers: [consumer("w1")] });
    const after = observation({ holder: "w0", consumers: [consumer("w0", "2026-11-22T10:00:02.000Z"), consumer("w1")] });
    expect(detectChanges(stateFrom(before, T0), after, ctx).next.holderSince).toBe("2026-11-22T10:00:02.000Z");
  });

  it("records the leader lost and a leader appearing", () => {
    const held = observation({ holder: "w1", consumers: [consumer("w1")] });
    const empty = observation({ holder: null, consumers: [] });
    const lost = detectChanges(stateFrom(held, T0), empty, ctx);
    expect(lost.changes).toEqual([expect.objectContaining({ kind: "HOLDER_LOST", fromHolder: "w1", toHolder: null })]);
    expect(lost.next.holderSince).toBeNull();

    const appeared = detectChanges(lost.next, held, { pollAt: T2, isBrokerSide: false });
    expect(appeared.changes).toEqual([expect.objectContaining({ kind: "HOLDER_APPEARED", fromHolder: null, toHolder: "w1", oldSeenAt: T1, newSeenAt: T2 })]);
  });

  it("records a hidden flap: the same leader at both polls but with a new connection", () => {
    const before = observation({ holder: "w1", consumers: [consumer("w1", "2026-11-22T09:00:00.000Z"), consumer("w2")] });
    const after = observation({ holder: "w1", consumers: [consumer("w1", "2026-11-22T10:00:03.000Z"), consumer("w2")] });
    const { changes, next } = detectChanges(stateFrom(before, T0), after, ctx);
    expect(changes.map((c) => c.kind)).toEqual(["HIDDEN_FLAP"]);
    expect(changes[0]).toMatchObject({ fromHolder: "w1", toHolder: "w1", details: { connectedSinceAfter: "2026-11-22T10:00:03.000Z" } });
    expect(next.holderSince).toBe("2026-11-22T10:00:03.000Z");
  });

  it("records a standby joining or leaving as a consumer-set change, not a leader change", () => {
    const before = observation({ holder: "w1", consumers: [consumer("w1"), consumer("w2")] });
    const after = observation({ holder: "w1", consumers: [consumer("w1"), consumer("w3")] });
    const { changes } = detectChanges(stateFrom(before, T0), after, ctx);
    expect(changes).toEqual([
      expect.objectContaining({
        kind: "CONSUMERS_CHANGED",
        fromHolder: "w1",
        toHolder: "w1",
        details: expect.objectContaining({ added: ["w3"], removed: ["w2"] }),
      }),
    ]);
  });

  it("does not record a consumer-set change beside a leader change: the details carry it", () => {
    const before = observation({ holder: "w1", consumers: [consumer("w1"), consumer("w2")] });
    const after = observation({ holder: "w2", consumers: [consumer("w2")] });
    expect(detectChanges(stateFrom(before, T0), after, ctx).changes.map((c) => c.kind)).toEqual(["HOLDER_CHANGED"]);
  });

  it("marks a change first seen after failed polls as during the gap, cause unknown", () => {
    const before = observation({ holder: "w1", consumers: [consumer("w1"), consumer("w2")] });
    const stale = markStale(stateFrom(before, T0), "HTTP 503", T1);
    const after = observation({ holder: "w2", consumers: [consumer("w2")] });
    const { changes, next } = detectChanges(stale, after, { pollAt: T2, isBrokerSide: false });
    expect(changes).toEqual([expect.objectContaining({ kind: "HOLDER_CHANGED", oldSeenAt: T0, newSeenAt: T2, isDuringGap: true, cause: "UNKNOWN" })]);
    expect(next).toMatchObject({ staleSince: null, lastError: null });
  });

  it("puts a change down to the broker when the context says so", () => {
    const before = observation({ holder: "w1", consumers: [consumer("w1")] });
    const after = observation({ holder: null, consumers: [] });
    expect(detectChanges(stateFrom(before, T0), after, { pollAt: T1, isBrokerSide: true }).changes[0]!.cause).toBe("BROKER");
  });

  it("records Key_Shared ranges moving with each consumer's share gained or lost", () => {
    const before = observation({
      holder: null,
      subscriptionType: "Key_Shared",
      consumers: [consumer("a"), consumer("b")],
      hashRanges: {
        space: 65536,
        consumers: [
          { consumer: "a", ranges: [[0, 32767]] },
          { consumer: "b", ranges: [[32768, 65535]] },
        ],
      },
    });
    const after = observation({
      holder: null,
      subscriptionType: "Key_Shared",
      consumers: [consumer("a"), consumer("b"), consumer("c")],
      hashRanges: {
        space: 65536,
        consumers: [
          { consumer: "a", ranges: [[0, 16383]] },
          { consumer: "b", ranges: [[32768, 65535]] },
          { consumer: "c", ranges: [[16384, 32767]] },
        ],
      },
    });
    const { changes } = detectChanges(stateFrom(before, T0), after, ctx);
    expect(changes.map((c) => c.kind).sort()).toEqual(["CONSUMERS_CHANGED", "RANGES_MOVED"]);
    const moved = changes.find((c) => c.kind === "RANGES_MOVED")!;
    expect(moved.details.shareDelta).toEqual({ a: -0.25, b: 0, c: 0.25 });
  });

  it("keeps the last known leader when a poll fails, and never records a change for it", () => {
    const state = stateFrom(observation({ holder: "w1", consumers: [consumer("w1")] }), T0);
    const stale = markStale(state, "cannot reach broker: ECONNREFUSED", T1);
    expect(stale).toMatchObject({ holder: "w1", staleSince: T1, lastError: "cannot reach broker: ECONNREFUSED", lastObservedAt: T0 });
    // Still stale since the first failure.
    expect(markStale(stale, "timeout", T2).staleSince).toBe(T1);
    expect(markGone(state, T1)).toMatchObject({ holder: "w1", goneAt: T1 });
  });

  it("keeps a bounded backlog history of what moved", () => {
    let state = stateFrom(observation({ holder: "w1", consumers: [consumer("w1")] }), T0);
    for (let i = 0; i < 30; i++) {
      state = detectChanges(state, observation({ holder: "w1", consumers: [consumer("w1")], backlog: i }), {
        pollAt: new Date(Date.parse(T1) + i * 1000).toISOString(),
        isBrokerSide: false,
      }).next;
    }
    expect(state.recentSamples).toHaveLength(12);
    expect(state.recentSamples.at(-1)!.backlog).toBe(29);
  });

  it("samples a backlog that sits still once a minute, not every poll", () => {
    let state = stateFrom(observation({ holder: "w1", consumers: [consumer("w1")] }), T0);
    const at = (seconds: number) => new Date(Date.parse(T1) + seconds * 1000).toISOString();
    for (let s = 0; s <= 125; s += 5)
      state = detectChanges(state, observation({ holder: "w1", consumers: [consumer("w1")], backlog: 7 }), { pollAt: at(s), isBrokerSide: false }).next;
    // A still run is kept as its first sample and its latest, which moves with the minutes.
    expect(state.recentSamples.map((x) => x.at)).toEqual([at(0), at(120)]);
  });

  it("keeps a still run as its two ends after what moved, and starts a new run when it moves again", () => {
    let state = stateFrom(observation({ holder: "w1", consumers: [consumer("w1")] }), T0);
    const at = (seconds: number) => new Date(Date.parse(T1) + seconds * 1000).toISOString();
    const poll = (seconds: number, backlog: number, holder = "w1") =>
      (state = detectChanges(state, observation({ holder, consumers: [consumer(holder)], backlog }), { pollAt: at(seconds), isBrokerSide: false }).next);
    poll(0, 1);
    poll(5, 2);
    poll(10, 3);
    for (let s = 15; s <= 600; s += 5) poll(s, 3);
    expect(state.recentSamples.map((x) => [x.at, x.backlog])).toEqual([
      [at(0), 1],
      [at(5), 2],
      [at(10), 3],
      [at(550), 3],
    ]);
    poll(605, 4);
    poll(610, 4);
    for (let s = 615; s <= 740; s += 5) poll(s, 4);
    expect(state.recentSamples.map((x) => [x.at, x.backlog])).toEqual([
      [at(0), 1],
      [at(5), 2],
      [at(10), 3],
      [at(550), 3],
      [at(605), 4],
      [at(725), 4],
    ]);
    // The same backlog under another holder is not the same run.
    poll(745, 4, "w2");
    expect(state.recentSamples.at(-1)).toMatchObject({ at: at(745), backlog: 4, holder: "w2" });
    expect(state.recentSamples).toHaveLength(7);
  });
});

describe("diffConsumers", () => {
  it("tells joined, left and reconnected consumers apart", () => {
    expect(
      diffConsumers([consumer("a", "t1"), consumer("b", "t1"), consumer("c", null)], [consumer("a", "t1"), consumer("b", "t2"), consumer("d", "t2")]),
    ).toEqual({
      added: ["d"],
      removed: ["c"],
      reconnected: ["b"],
    });
  });
});

describe("detectChanges on the broker's nanosecond timestamps", () => {
  it("stores connectedSince-based times in milliseconds", () => {
    const obs = observation({ holder: "w1", consumers: [consumer("w1", "2026-11-22T10:00:04.983817679Z")] });
    expect(detectChanges(undefined, obs, ctx).next.holderSince).toBe("2026-11-22T10:00:04.983Z");
  });

  it("compares them by time: a holder that connected inside the interval is dated by its connection", () => {
    const before = observation({ holder: "w1", consumers: [consumer("w1", "2026-11-22T09:00:00.123456789Z")] });
    const after = observation({
      holder: "w0",
      consumers: [consumer("w0", "2026-11-22T10:00:04.983817679Z"), consumer("w1", "2026-11-22T09:00:00.123456789Z")],
    });
    expect(detectChanges(stateFrom(before, "2026-11-22T10:00:00.000Z"), after, ctx).next.holderSince).toBe("2026-11-22T10:00:04.983Z");
  });
});
