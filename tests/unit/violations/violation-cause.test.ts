import { describe, expect, it } from "vitest";

import type { LockChangeMarker } from "@/lib/violations/drilldown-types";
import type { ViolationOwner } from "@/lib/violations/owner-types";
import { VIOLATION_CAUSES, type ViolationCause } from "@/lib/violations/cause-words";
import { type CauseFacts, causeFactsOf, classifyCause, classifyCauses, countCauses, type IsSilentBefore, mainCause } from "@/lib/violations/violation-cause";
import type { LeaderChangeMarker } from "@/lib/violations/violation-types";

const T0 = Date.parse("2026-11-27T19:00:00Z");
const iso = (offsetMs: number) => new Date(T0 + offsetMs).toISOString();
const AT = iso(0);

function leaderChange(from: string, oldMs: number | null, newMs: number): LeaderChangeMarker {
  return {
    id: `c${newMs}`,
    cluster: "demo",
    topic: "persistent://demo/events/users",
    partition: 0,
    subscription: "orchestrator",
    kind: "HOLDER_CHANGED",
    cause: "CLIENT",
    fromHolder: from,
    toHolder: "w2",
    oldSeenAt: oldMs === null ? null : iso(oldMs),
    newSeenAt: iso(newMs),
  };
}

function lockChange(ending: string | null): LockChangeMarker {
  return {
    id: "l1",
    lock: "demo-locks/scheduler:leader",
    kind: "HOLDER_CHANGED",
    ending,
    fromHolder: "sched-a",
    toHolder: "sched-b",
    oldSeenAt: iso(-3_000),
    newSeenAt: iso(-2_000),
    expiresAtBefore: iso(-2_500),
    acquiredAt: iso(-2_000),
  };
}

function ownerMoved(from: string, changedAfterMs: number | null, changedAtMs: number): ViolationOwner {
  return {
    isComputed: true,
    rule: "key-shared",
    owner: "w2",
    hash: 10,
    range: [0, 100],
    partition: -1,
    isPartitionRouted: false,
    change: {
      from,
      to: "w2",
      changedAfter: changedAfterMs === null ? null : iso(changedAfterMs),
      changedAt: iso(changedAtMs),
      rangeBefore: [0, 200],
      joined: [],
      left: [],
    },
  };
}

const NONE: CauseFacts = {
  isTwoHands: false,
  isInsideDeployment: false,
  hasLockExpiredWhileHeld: false,
  hasWorkerStalledThroughMove: false,
  hasOwnershipChange: false,
};

describe("classifyCause: one precedence", () => {
  const cases: { name: string; facts: Partial<CauseFacts>; cause: ViolationCause }[] = [
    { name: "nothing around it", facts: {}, cause: "unexplained" },
    { name: "a leader change only", facts: { hasOwnershipChange: true }, cause: "failover-overlap" },
    {
      name: "a stall through a move (which is also a change)",
      facts: { hasWorkerStalledThroughMove: true, hasOwnershipChange: true },
      cause: "worker-stalled",
    },
    { name: "a lock expired while held, with a handover", facts: { hasLockExpiredWhileHeld: true, hasOwnershipChange: true }, cause: "holder-stalled" },
    {
      name: "a lock expiry beats a worker stall",
      facts: { hasLockExpiredWhileHeld: true, hasWorkerStalledThroughMove: true, hasOwnershipChange: true },
      cause: "holder-stalled",
    },
    { name: "inside a deployment only", facts: { isInsideDeployment: true }, cause: "rollout" },
    { name: "a deployment beats a failover", facts: { isInsideDeployment: true, hasOwnershipChange: true }, cause: "rollout" },
    {
      name: "a deployment beats every stall",
      facts: { isInsideDeployment: true, hasLockExpiredWhileHeld: true, hasWorkerStalledThroughMove: true, hasOwnershipChange: true },
      cause: "rollout",
    },
    { name: "two holds seen at once in the lock's own records", facts: { isTwoHands: true }, cause: "two-hands" },
    { name: "a double run beats a failover", facts: { isTwoHands: true, hasOwnershipChange: true }, cause: "two-hands" },
    {
      name: "a double run beats every stall",
      facts: { isTwoHands: true, hasLockExpiredWhileHeld: true, hasWorkerStalledThroughMove: true, hasOwnershipChange: true },
      cause: "two-hands",
    },
    {
      // Inside a declared rollout it counts as the rollout, as the charts' inside-deployments count and the alert do.
      name: "a double run inside a deployment window of its service is the rollout's",
      facts: { isTwoHands: true, isInsideDeployment: true },
      cause: "rollout",
    },
  ];
  for (const { name, facts, cause } of cases) {
    it(`${name}: ${cause}`, () => expect(classifyCause({ ...NONE, ...facts })).toBe(cause));
  }
});

describe("causeFactsOf: the evidence", () => {
  const base = { observedAt: AT, worker: "w2", othersInside: [], isInsideDeployment: false, leaderChanges: [], lockChanges: [], owner: null };
  // The woken worker: w1's partition moved to w2 while w1 sent nothing (frozen); w1 enters after.
  const silentW1: IsSilentBefore = (probe) => probe.worker === "w1";
  const busy: IsSilentBefore = () => false;

  const cases: { name: string; input: Partial<Parameters<typeof causeFactsOf>[0]>; cause: ViolationCause }[] = [
    { name: "no evidence", input: {}, cause: "unexplained" },
    { name: "a leader change of the partition", input: { leaderChanges: [leaderChange("w1", -2_000, -1_000)] }, cause: "failover-overlap" },
    { name: "a lock handed over (released)", input: { lockChanges: [lockChange("RELEASED")] }, cause: "failover-overlap" },
    { name: "a lock that expired while held", input: { lockChanges: [lockChange("EXPIRED")] }, cause: "holder-stalled" },
    {
      name: "a lock whose hold was still seen after the violation, then expired (it let nobody in)",
      input: { lockChanges: [{ ...lockChange("EXPIRED"), oldSeenAt: iso(1_000), newSeenAt: iso(2_000), expiresAtBefore: iso(1_500) }] },
      cause: "failover-overlap",
    },
    {
      name: "the old leader entered long before the move and is still inside",
      input: { othersInside: [{ worker: "w1", enteredAt: iso(-9_000) }], leaderChanges: [leaderChange("w1", -2_000, -1_000)] },
      cause: "worker-stalled",
    },
    {
      name: "a message that merely straddled the move (entered after the old owner was last seen)",
      input: { othersInside: [{ worker: "w1", enteredAt: iso(-1_500) }], leaderChanges: [leaderChange("w1", -2_000, -1_000)] },
      cause: "failover-overlap",
    },
    {
      name: "the one inside is not whom the key moved from",
      input: { othersInside: [{ worker: "w3", enteredAt: iso(-9_000) }], leaderChanges: [leaderChange("w1", -2_000, -1_000)] },
      cause: "failover-overlap",
    },
    {
      name: "the move comes after the violation",
      input: { othersInside: [{ worker: "w1", enteredAt: iso(-9_000) }], leaderChanges: [leaderChange("w1", 1_000, 2_000)] },
      cause: "failover-overlap",
    },
    {
      name: "a Key_Shared range moved away from the worker inside (the owner's history)",
      input: { othersInside: [{ worker: "w1", enteredAt: iso(-9_000) }], owner: ownerMoved("w1", -3_000, -1_000) },
      cause: "worker-stalled",
    },
    { name: "the owner changed, nobody recorded inside", input: { owner: ownerMoved("w1", -3_000, -1_000) }, cause: "failover-overlap" },
    {
      name: "the worker that entered is the one the key moved away from, silent when the move was seen: a frozen worker woken up",
      input: {
        worker: "w1",
        othersInside: [{ worker: "w2", enteredAt: iso(-500) }],
        leaderChanges: [leaderChange("w1", -2_000, -1_000)],
        isSilentBefore: silentW1,
      },
      cause: "worker-stalled",
    },
    {
      name: "the old owner enters after the move, having sent events up to it: a message taken just before an ordinary failover",
      input: {
        worker: "w1",
        othersInside: [{ worker: "w2", enteredAt: iso(-500) }],
        leaderChanges: [leaderChange("w1", -2_000, -1_000)],
        isSilentBefore: busy,
      },
      cause: "failover-overlap",
    },
    {
      name: "a silent worker that is not the one the key moved away from",
      input: {
        worker: "w3",
        othersInside: [{ worker: "w2", enteredAt: iso(-500) }],
        leaderChanges: [leaderChange("w1", -2_000, -1_000)],
        isSilentBefore: () => true,
      },
      cause: "failover-overlap",
    },
    {
      name: "a silent old owner whose key moved only after its entry",
      input: {
        worker: "w1",
        othersInside: [{ worker: "w2", enteredAt: iso(-500) }],
        leaderChanges: [leaderChange("w1", 1_000, 2_000)],
        isSilentBefore: silentW1,
      },
      cause: "failover-overlap",
    },
    {
      name: "a stall inside a deployment window",
      input: { isInsideDeployment: true, othersInside: [{ worker: "w1", enteredAt: iso(-9_000) }], leaderChanges: [leaderChange("w1", -2_000, -1_000)] },
      cause: "rollout",
    },
    {
      name: "a lock expiry and a worker stall together",
      input: {
        lockChanges: [lockChange("EXPIRED")],
        othersInside: [{ worker: "w1", enteredAt: iso(-9_000) }],
        leaderChanges: [leaderChange("w1", -2_000, -1_000)],
      },
      cause: "holder-stalled",
    },
    {
      name: "a double run the poller saw in the lock's records, during a handover",
      input: { twoHands: "quartz", isInsideDeployment: false, lockChanges: [lockChange("RELEASED")], othersInside: [{ worker: "w1", enteredAt: iso(-9_000) }] },
      cause: "two-hands",
    },
    { name: "no double run named (a client's event)", input: { twoHands: null, lockChanges: [lockChange("RELEASED")] }, cause: "failover-overlap" },
  ];
  for (const { name, input, cause } of cases) {
    it(`${name}: ${cause}`, () => expect(classifyCause(causeFactsOf({ ...base, ...input }))).toBe(cause));
  }
});

describe("classifyCauses: a stall seen later names its first violation too", () => {
  const frozen = { worker: "w1", enteredAt: iso(-9_000) };
  const moved = { hasOwnershipChange: true };
  it("makes the failover overlap of the same key and the same stay a worker stall", () => {
    const causes = classifyCauses([
      // The first entry after the freeze: the poller had not seen the move yet.
      { key: "k", facts: { ...NONE, ...moved }, othersInside: [frozen] },
      // A later entry of the same key, after the move was seen: the stall's evidence.
      { key: "k", facts: { ...NONE, ...moved, hasWorkerStalledThroughMove: true }, othersInside: [frozen] },
      // Another key, or another stay of the same worker, is not that stall.
      { key: "other", facts: { ...NONE, ...moved }, othersInside: [frozen] },
      { key: "k", facts: { ...NONE, ...moved }, othersInside: [{ worker: "w1", enteredAt: iso(-60_000) }] },
      // A rollout or an unexplained violation stays what it is.
      { key: "k", facts: { ...NONE, ...moved, isInsideDeployment: true }, othersInside: [frozen] },
      { key: "k", facts: NONE, othersInside: [frozen] },
    ]);
    expect(causes).toEqual(["worker-stalled", "worker-stalled", "failover-overlap", "failover-overlap", "rollout", "unexplained"]);
  });
});

describe("counting", () => {
  it("names every cause and adds up to the total", () => {
    const causes: ViolationCause[] = ["unexplained", "rollout", "rollout", "worker-stalled"];
    const counts = countCauses(causes);
    expect(Object.keys(counts).sort()).toEqual([...VIOLATION_CAUSES].sort());
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(causes.length);
    expect(mainCause(counts)).toBe("rollout");
  });

  it("breaks a tie by precedence, and has no main cause without violations", () => {
    expect(mainCause(countCauses(["unexplained", "holder-stalled"]))).toBe("holder-stalled");
    expect(mainCause(countCauses([]))).toBeNull();
  });
});
