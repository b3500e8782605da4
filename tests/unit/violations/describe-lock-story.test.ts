import { describe, expect, it } from "vitest";

import { describeLockStory } from "@/lib/violations/describe-lock-story";
import type { DrilldownEvent, LockChangeMarker, ViolationExplanation } from "@/lib/violations/drilldown-types";
import { explainViolations } from "@/lib/violations/explain-violations";

const LOCK = "redis-main/lock:daily-job";
const T = Date.parse("2026-11-22T10:02:05.000Z");
const at = (offsetMs: number) => new Date(T + offsetMs).toISOString();

const violation: DrilldownEvent = {
  eventId: "e-b",
  key: "user-42",
  counter: 1,
  isViolation: true,
  service: "scheduler",
  worker: "pod-b",
  topic: null,
  subscription: null,
  partition: null,
  traceId: null,
  traceUrl: null,
  observedAt: at(0),
  receivedAt: at(0),
  resource: null,
  othersInside: [{ worker: "pod-a", enteredAt: at(-4_000) }],
  lock: LOCK,
};

function change(id: string, overrides: Partial<LockChangeMarker>): LockChangeMarker {
  return {
    id,
    lock: LOCK,
    kind: "HOLDER_CHANGED",
    ending: null,
    fromHolder: null,
    toHolder: null,
    oldSeenAt: null,
    newSeenAt: at(0),
    expiresAtBefore: null,
    acquiredAt: null,
    ...overrides,
  };
}

function storyOf(changes: LockChangeMarker[], event: DrilldownEvent = violation): { story: string | null; explanation: ViolationExplanation } {
  const [explanation] = explainViolations({ events: [event], changes: [], lockChanges: changes, deployments: [], windowMs: 120_000, nowMs: T + 60_000 });
  const story = describeLockStory(explanation!, { event, changes: new Map(changes.map((c) => [c.id, c])), windowMs: 120_000, timeZone: "UTC" });
  return { story, explanation: explanation! };
}

describe("describeLockStory", () => {
  it("tells the GC-pause failure: expired while pod-a held it, pod-b acquired it 40 ms later, pod-a still inside", () => {
    const expiry = change("c1", {
      kind: "HOLDER_LOST",
      ending: "EXPIRED",
      fromHolder: "pod-a",
      oldSeenAt: at(-2_000),
      newSeenAt: at(-900),
      expiresAtBefore: at(-1_000),
    });
    const takeover = change("c2", { kind: "HOLDER_APPEARED", toHolder: "pod-b", oldSeenAt: at(-900), newSeenAt: at(-800), acquiredAt: at(-960) });
    const { story, explanation } = storyOf([expiry, takeover]);
    expect(explanation).toMatchObject({ cause: "holder-stalled", lockChangeIds: ["c1", "c2"] });
    expect(story).toBe(
      "The lock redis-main/lock:daily-job expired while pod-a held it (its TTL ended at 2026-11-22 10:02:04.000); pod-b acquired it 40 ms later; pod-a was still inside key user-42 when pod-b entered: a holder that stalled past its TTL and kept working.",
    );
  });

  it("tells the expiry that let pod-b in, not the next holder's own expiry after the violation (pod-b crashed once the job ran)", () => {
    const expiry = change("c1", {
      kind: "HOLDER_LOST",
      ending: "EXPIRED",
      fromHolder: "pod-a",
      oldSeenAt: at(-2_000),
      newSeenAt: at(-900),
      expiresAtBefore: at(-1_000),
    });
    const takeover = change("c2", { kind: "HOLDER_APPEARED", toHolder: "pod-b", oldSeenAt: at(-900), newSeenAt: at(-800), acquiredAt: at(-960) });
    // pod-b's hold was last seen 1 s after the violation, so its expiry cannot explain it.
    const laterExpiry = change("c3", {
      kind: "HOLDER_LOST",
      ending: "EXPIRED",
      fromHolder: "pod-b",
      oldSeenAt: at(1_000),
      newSeenAt: at(2_500),
      expiresAtBefore: at(2_000),
    });
    const { story, explanation } = storyOf([expiry, takeover, laterExpiry]);
    expect(explanation).toMatchObject({ cause: "holder-stalled", lockChangeIds: ["c1", "c2", "c3"] });
    expect(story).toMatch(/^The lock redis-main\/lock:daily-job expired while pod-a held it .*; pod-b acquired it 40 ms later; pod-a was still inside/);
  });

  it("tells a takeover seen in one observation the same way, from the change itself", () => {
    const { story } = storyOf([
      change("c1", {
        ending: "EXPIRED",
        fromHolder: "pod-a",
        toHolder: "pod-b",
        oldSeenAt: at(-3_000),
        newSeenAt: at(-500),
        expiresAtBefore: at(-1_000),
        acquiredAt: at(-700),
      }),
    ]);
    expect(story).toMatch(/expired while pod-a held it .* pod-b acquired it 300 ms later; pod-a was still inside key user-42/);
  });

  it("tells a release and a handover apart from an expiry", () => {
    const { story } = storyOf([change("c1", { ending: "RELEASED", fromHolder: "pod-a", toHolder: "pod-b", oldSeenAt: at(-3_000), newSeenAt: at(-500) })]);
    expect(story).toBe(
      "The lock redis-main/lock:daily-job changed hands: pod-a released it; pod-b acquired it at about 2026-11-22 10:02:04.500; pod-a was still inside key user-42 when pod-b entered.",
    );
  });

  it("says so when the lock did not change hands at all (two workers under one held lock)", () => {
    const { story, explanation } = storyOf([change("far", { ending: "EXPIRED", fromHolder: "pod-a", newSeenAt: at(-3_600_000), oldSeenAt: at(-3_601_000) })]);
    expect(explanation.cause).toBe("unexplained");
    expect(story).toMatch(/did not change hands within ±2 m of this violation: two workers were inside while it was held/);
  });

  it("has nothing to say of an event that names no lock, and ignores another lock's changes", () => {
    expect(storyOf([change("c1", { ending: "EXPIRED", fromHolder: "pod-a" })], { ...violation, lock: null }).story).toBeNull();
    expect(storyOf([change("c1", { lock: "redis-main/other", ending: "EXPIRED", fromHolder: "pod-a" })]).explanation.lockChangeIds).toEqual([]);
  });
});
