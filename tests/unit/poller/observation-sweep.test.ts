import { describe, expect, it } from "vitest";

import { deriveLastObservations, sweepTimeOf } from "@/lib/poller/observation-sweep";

// A resource's last observation, derived from its cluster's latest full cycle: the same times as
// when every row was rewritten on every cycle, for fresh, errored, gone and never-swept rows.

const T0 = "2026-11-22T10:00:00.000Z";
const T1 = "2026-11-22T10:00:05.000Z";
const T2 = "2026-11-22T10:00:10.000Z";
const T3 = "2026-11-22T10:00:12.000Z";

type S = { key: string; lastObservedAt: string | null; staleSince: string | null; lastError: string | null; lastErrorAt: string | null; goneAt: string | null };

function state(overrides: Partial<S>): S {
  return { key: "a", lastObservedAt: T0, staleSince: null, lastError: null, lastErrorAt: null, goneAt: null, ...overrides };
}

describe("deriveLastObservations", () => {
  it("takes a fresh row written long ago as observed by the latest full cycle", () => {
    expect(deriveLastObservations([state({})], T2)[0]!.lastObservedAt).toBe(T2);
  });

  it("keeps a fresh row's own time when a read between full cycles wrote it later", () => {
    expect(deriveLastObservations([state({ lastObservedAt: T3 })], T2)[0]!.lastObservedAt).toBe(T3);
  });

  it("keeps the last observation of a resource that errored while the rest of the cycle succeeded, and moves its last failure", () => {
    const [errored] = deriveLastObservations([state({ lastObservedAt: T0, staleSince: T1, lastError: "HTTP 500", lastErrorAt: T1 })], T2);
    expect(errored).toMatchObject({ lastObservedAt: T0, staleSince: T1, lastErrorAt: T2 });
  });

  it("leaves a gone row as it was written", () => {
    const gone = state({ lastObservedAt: T0, goneAt: T1 });
    expect(deriveLastObservations([gone], T2)[0]).toEqual(gone);
  });

  it("changes nothing for a cluster never swept (rows written one by one, as before)", () => {
    const rows = [state({})];
    expect(deriveLastObservations(rows, null)).toBe(rows);
  });
});

describe("sweepTimeOf", () => {
  it("is the cycle's earliest observation or failure, gone rows aside", () => {
    const states = [
      state({ lastObservedAt: T2 }),
      state({ lastObservedAt: T0, staleSince: T0, lastErrorAt: T1 }),
      state({ lastObservedAt: "2026-11-01T00:00:00.000Z", goneAt: "2026-11-02T00:00:00.000Z" }),
      state({ lastObservedAt: T3 }),
    ];
    expect(sweepTimeOf(states)).toBe(T1);
  });

  it("is null for a cycle that touched nothing", () => {
    expect(sweepTimeOf([])).toBeNull();
  });
});
