import { describe, expect, it } from "vitest";

import { detectHoldChanges } from "@/lib/poller/detect-hold-changes";
import type { HoldState } from "@/lib/poller/hold-state";
import type { HoldHint, HoldObservation } from "@/lib/poller/contract/hold-observation";

const T0 = Date.parse("2026-11-22T10:00:00.000Z");
const at = (offsetMs: number) => new Date(T0 + offsetMs).toISOString();

function seen(offsetMs: number, holder: string | null, token: string | null, ttlMs: number | null, extra: Partial<HoldObservation> = {}): HoldObservation {
  return {
    resourceKey: "lock:daily-job",
    pattern: "lock:*",
    holder,
    holderToken: token,
    expiresAt: ttlMs === null || holder === null ? null : at(offsetMs + ttlMs),
    ttlMs: holder === null ? null : ttlMs,
    waiters: [],
    observedAt: at(offsetMs),
    isSplit: false,
    details: {},
    ...extra,
  };
}

/** Feeds observations through the detector in order; returns every change and the last state. */
function run(observations: HoldObservation[], hints: (HoldHint | null)[] = []) {
  let state: HoldState | undefined;
  const changes = [];
  for (const [i, obs] of observations.entries()) {
    const detection = detectHoldChanges(state, obs, hints[i] ?? null);
    changes.push(...detection.changes);
    state = detection.next;
  }
  return { changes, state: state! };
}

const hint = (kind: HoldHint["kind"], event: string | null): HoldHint => ({ key: "lock:daily-job", kind, event, at: at(0) });

describe("detectHoldChanges", () => {
  it("records no change for a lock seen for the first time, and holds it since that observation", () => {
    const { changes, state } = run([seen(0, "pod-a", "tok-a", 10_000)]);
    expect(changes).toEqual([]);
    expect(state).toMatchObject({ holder: "pod-a", holderToken: "tok-a", holderSince: at(0), lastObservedAt: at(0), expiresAt: at(10_000) });
  });

  it("an acquire is HOLDER_APPEARED, bounded by the two observations, dated by the TTL already used", () => {
    const { changes, state } = run([seen(0, "pod-a", "tok-a", 10_000), seen(1_000, null, null, null), seen(3_000, "pod-b", "tok-b", 9_500)]);
    // The TTL of pod-a's tenure (10 s) is not known for pod-b's: the first observation dates it.
    expect(changes.map((c) => [c.kind, c.ending, c.fromHolder, c.toHolder, c.oldSeenAt, c.newSeenAt])).toEqual([
      ["HOLDER_LOST", "RELEASED", "pod-a", null, at(0), at(1_000)],
      ["HOLDER_APPEARED", null, null, "pod-b", at(1_000), at(3_000)],
    ]);
    expect(state.holderSince).toBe(at(3_000));
  });

  it("tells a release (gone before its TTL could end) from an expiry while held (gone at or after it)", () => {
    const released = run([seen(0, "pod-a", "tok-a", 10_000), seen(4_000, null, null, null)]);
    const expired = run([seen(0, "pod-a", "tok-a", 10_000), seen(10_000, null, null, null)]);
    expect(released.changes[0]).toMatchObject({ kind: "HOLDER_LOST", ending: "RELEASED" });
    expect(expired.changes[0]).toMatchObject({ kind: "HOLDER_LOST", ending: "EXPIRED", details: { expiresAtBefore: at(10_000) } });
  });

  it("believes the source's own word over the clock: expiry and release hints, recorded in the source's words", () => {
    const early = run([seen(0, "pod-a", "tok-a", 10_000), seen(4_000, null, null, null)], [null, hint("expiry", "expired")]);
    const late = run([seen(0, "pod-a", "tok-a", 10_000), seen(4_000, "pod-b", "tok-b", 10_000)], [null, hint("release", "DELETE")]);
    const lateByClock = run([seen(0, "pod-a", "tok-a", 10_000), seen(12_000, null, null, null)], [null, hint("release", null)]);
    expect(early.changes[0]).toMatchObject({ ending: "EXPIRED", details: { hint: "expired" } });
    expect(late.changes[0]).toMatchObject({ kind: "HOLDER_CHANGED", ending: "RELEASED", details: { hint: "DELETE" } });
    // A delete the server reports outweighs the expiry Baton last read (a renewal it missed).
    expect(lateByClock.changes[0]).toMatchObject({ kind: "HOLDER_LOST", ending: "RELEASED", details: { hint: null } });
  });

  it("decides nothing on a change hint: the clock and the tokens tell the ending, and the hint's word is recorded", () => {
    const released = run([seen(0, "pod-a", "tok-a", 10_000), seen(4_000, null, null, null)], [null, hint("change", "deleted")]);
    const expired = run([seen(0, "pod-a", "tok-a", 10_000), seen(10_000, null, null, null)], [null, hint("change", "children")]);
    const takenOver = run([seen(0, "pod-a", "tok-a", 10_000), seen(2_000, "pod-b", "tok-b", 10_000)], [null, hint("change", "set")]);
    expect(released.changes[0]).toMatchObject({ ending: "RELEASED", details: { hint: "deleted" } });
    expect(expired.changes[0]).toMatchObject({ ending: "EXPIRED", details: { hint: "children" } });
    expect(takenOver.changes[0]).toMatchObject({ ending: "TAKEN_OVER", details: { hint: "set" } });
  });

  it("believes the source when it says how the previous hold ended (a lock table's isReleased, a lease it saw run out)", () => {
    const released = run([seen(0, "pod-a", "tok-a", 10_000), seen(12_000, null, null, null, { previousEnding: "RELEASED" })]);
    const expired = run([seen(0, "pod-a", "tok-a", null), seen(2_000, "pod-b", "tok-b", null, { previousEnding: "EXPIRED" })]);
    expect(released.changes[0]).toMatchObject({ kind: "HOLDER_LOST", ending: "RELEASED" });
    expect(expired.changes[0]).toMatchObject({ kind: "HOLDER_CHANGED", ending: "EXPIRED" });
  });

  it("a new token between two observations is a takeover, or the GC-pause expiry when past the old TTL", () => {
    const takeover = run([seen(0, "pod-a", "tok-a", 10_000), seen(2_000, "pod-b", "tok-b", 10_000)]);
    const gcPause = run([seen(0, "pod-a", "tok-a", 10_000), seen(10_500, "pod-b", "tok-b", 9_960)]);
    expect(takeover.changes[0]).toMatchObject({ kind: "HOLDER_CHANGED", ending: "TAKEN_OVER", fromHolder: "pod-a", toHolder: "pod-b" });
    expect(gcPause.changes[0]).toMatchObject({ kind: "HOLDER_CHANGED", ending: "EXPIRED" });
    // pod-b's TTL had 40 ms used up of the tenure's 10 s: it acquired 40 ms before the observation.
    expect(gcPause.state.holderSince).toBe(at(10_460));
    expect(gcPause.changes[0]!.details).toMatchObject({ acquiredAt: at(10_460), expiresAtBefore: at(10_000) });
  });

  it("keeps the kind's own details of both sides on the change: a new ZooKeeper session of the same participant shows in them", () => {
    const { changes } = run([
      seen(0, "pod-a", "0x1a/latch-0000000001", null, { details: { holderSessionId: "0x1a", holderNode: "latch-0000000001" } }),
      seen(3_000, "pod-a", "0x2b/latch-0000000004", null, { details: { holderSessionId: "0x2b", holderNode: "latch-0000000004" } }),
    ]);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      kind: "HIDDEN_FLAP",
      details: { sourceBefore: { holderSessionId: "0x1a" }, sourceAfter: { holderSessionId: "0x2b", holderNode: "latch-0000000004" } },
    });
  });

  it("the same holder under a new token is a hidden re-acquire (HIDDEN_FLAP), not the same hold", () => {
    const { changes } = run([seen(0, "pod-a", "tok-1", 10_000), seen(3_000, "pod-a", "tok-2", 10_000)]);
    expect(changes).toEqual([
      expect.objectContaining({
        kind: "HIDDEN_FLAP",
        ending: "RELEASED",
        fromHolder: "pod-a",
        toHolder: "pod-a",
        details: expect.objectContaining({ tokenBefore: "tok-1", tokenAfter: "tok-2" }),
      }),
    ]);
  });

  it("a TTL extension or watchdog renewal is not a change; a TTL close to zero is counted", () => {
    const { changes, state } = run([
      seen(0, "pod-a", "tok-a", 30_000),
      seen(10_000, "pod-a", "tok-a", 30_000), // renewed
      seen(35_000, "pod-a", "tok-a", 4_000), // almost ran out
      seen(36_000, "pod-a", "tok-a", 30_000),
    ]);
    expect(changes).toEqual([]);
    expect(state).toMatchObject({ holderSince: at(0), expiresAt: at(66_000), stats: { tenureMaxTtlMs: 30_000, nearExpiryCount: 1, longestHoldMs: 0 } });
  });

  it("remembers the longest hold that ended, and starts each tenure's TTL figures afresh", () => {
    const { state } = run([
      seen(0, "pod-a", "tok-a", 30_000),
      seen(20_000, "pod-a", "tok-a", 2_000),
      seen(25_000, null, null, null),
      seen(26_000, "pod-b", "tok-b", 10_000),
    ]);
    expect(state.stats).toEqual({ tenureMaxTtlMs: 10_000, nearExpiryCount: 0, longestHoldMs: 20_000 });
  });

  it("after failed reads the change is marked as during a gap, with an unknown cause", () => {
    const first = detectHoldChanges(undefined, seen(0, "pod-a", "tok-a", 10_000)).next;
    const stale = { ...first, staleSince: at(1_000), lastError: "ECONNREFUSED", lastErrorAt: at(1_000) };
    const { changes, next } = detectHoldChanges(stale, seen(20_000, "pod-b", "tok-b", 10_000));
    expect(changes[0]).toMatchObject({ kind: "HOLDER_CHANGED", cause: "UNKNOWN", isDuringGap: true, ending: "EXPIRED" });
    expect(next).toMatchObject({ staleSince: null, lastError: null });
  });

  it("a Redlock split seen twice in a row loses the holder without calling it a release or an expiry", () => {
    const { changes } = run([
      seen(0, "pod-a", "tok-a", 10_000),
      seen(2_000, null, null, null, { isSplit: true }),
      seen(3_000, null, null, null, { isSplit: true }),
    ]);
    expect(changes).toEqual([
      expect.objectContaining({
        kind: "HOLDER_LOST",
        ending: null,
        oldSeenAt: at(0),
        newSeenAt: at(3_000),
        details: expect.objectContaining({ isSplit: true }),
      }),
    ]);
  });

  it("a split seen once (a Redlock acquire or release reaching the last master a moment later) is no change", () => {
    const { changes, state } = run([seen(0, "pod-a", "tok-a", 10_000), seen(1_000, null, null, null, { isSplit: true }), seen(2_000, "pod-a", "tok-a", 9_000)]);
    expect(changes).toEqual([]);
    expect(state).toMatchObject({ holder: "pod-a", isSplit: false, lastObservedAt: at(2_000) });
  });

  describe("claims a take-over only where the old holder is known to live on (issue: a crash recorded as taken over)", () => {
    // A ZooKeeper holder SIGKILLed: its session expires; the read just before the change came in
    // the moment the server had dropped the session from its deadlines but not yet its node, so
    // the deadline Baton last read is missing. Its session gone says the hold ended with it.
    const coarse = { isExpiryCoarse: true };
    it("a holder whose session is gone, with no deadline read, ended with its session: expired, never taken over", () => {
      const { changes } = run([seen(0, "indexer-a", "0x1/n-0", null, coarse), seen(26, "indexer-b", "0x2/n-1", 9_000, { ...coarse, previousHolder: "gone" })]);
      expect(changes).toEqual([expect.objectContaining({ kind: "HOLDER_CHANGED", ending: "EXPIRED", fromHolder: "indexer-a", toHolder: "indexer-b" })]);
    });

    it("gone before the deadline last read: the holder closed its session (released); at or after it: expired", () => {
      const closed = run([seen(0, "a", "0x1/n-0", 10_000, coarse), seen(4_000, "b", "0x2/n-1", 10_000, { ...coarse, previousHolder: "gone" })]);
      const expired = run([seen(0, "a", "0x1/n-0", 10_000, coarse), seen(10_000, null, null, null, { ...coarse, previousHolder: "gone" })]);
      expect(closed.changes[0]).toMatchObject({ kind: "HOLDER_CHANGED", ending: "RELEASED" });
      expect(expired.changes[0]).toMatchObject({ kind: "HOLDER_LOST", ending: "EXPIRED" });
    });

    it("an old holder known alive was taken over; with a coarse deadline and nothing known of the holder, the ending is not known", () => {
      const alive = run([seen(0, "a", "0x1/n-0", 10_000, coarse), seen(2_000, "b", "0x2/n-1", 10_000, { ...coarse, previousHolder: "alive" })]);
      const unknown = run([seen(0, "a", "0x1/n-0", 10_000, coarse), seen(2_000, "b", "0x2/n-1", 10_000, coarse)]);
      const noDeadline = run([seen(0, "a", "0x1/n-0", null), seen(2_000, "b", "0x2/n-1", null)]);
      expect(alive.changes[0]).toMatchObject({ kind: "HOLDER_CHANGED", ending: "TAKEN_OVER" });
      expect(unknown.changes[0]).toMatchObject({ kind: "HOLDER_CHANGED", ending: null });
      expect(noDeadline.changes[0]).toMatchObject({ kind: "HOLDER_CHANGED", ending: null });
    });

    it("the source's own word still wins over what it says of the holder", () => {
      const { changes } = run(
        [seen(0, "a", "0x1/n-0", 10_000), seen(2_000, "b", "0x2/n-1", 10_000, { previousHolder: "gone" })],
        [null, hint("release", "DELETE")],
      );
      expect(changes[0]).toMatchObject({ ending: "RELEASED" });
    });
  });
});
