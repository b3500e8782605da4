import { describe, expect, it } from "vitest";

import { openHoldCycles } from "@/lib/poller/hold-cycles";
import type { HoldHint, HoldObservation } from "@/lib/poller/contract/hold-observation";
import type { HoldSource } from "@/lib/poller/contract/hold-source";

// A change signal can arrive while a read is under way: a lock service answers the read with the
// new holder a moment before its event (a watch, a notification) reaches Baton. The signal then
// explains the change the read found, and stays pending so that the next read looks again.

function observation(holder: string, token: string, observedAt: string): HoldObservation {
  return {
    resourceKey: "e/orders",
    pattern: "e/",
    holder,
    holderToken: token,
    expiresAt: new Date(Date.parse(observedAt) + 60_000).toISOString(),
    ttlMs: 60_000,
    waiters: [],
    observedAt,
    isSplit: false,
    details: {},
  };
}

/** A source whose reads return the scripted holders in turn; `duringRead` runs while a read is under way. */
function scriptedSource(holders: [string, string][], duringRead: (emit: (hints: HoldHint[]) => void, read: number) => void): HoldSource {
  let emit: (hints: HoldHint[]) => void = () => undefined;
  let reads = 0;
  return {
    discover: async () => ({ keys: [{ key: "e/orders", pattern: "e/" }], errors: [], isComplete: true }),
    async observe() {
      const [holder, token] = holders[Math.min(reads, holders.length - 1)]!;
      duringRead(emit, reads);
      reads += 1;
      return { observations: [observation(holder, token, new Date().toISOString())], errors: [] };
    },
    patternOf: () => "e/",
    async watch(onHints) {
      emit = onHints;
      return { mode: "watch", stop: async () => {} };
    },
    takeRequestCount: () => 0,
    close: async () => {},
  };
}

async function runTwice(duringRead: Parameters<typeof scriptedSource>[1]) {
  const cycles = await openHoldCycles(
    scriptedSource(
      [
        ["pod-a", "a@1"],
        ["pod-b", "b@2"],
      ],
      duringRead,
    ),
    [],
    { resourceKind: "ETCD_LOCK", discoveryIntervalMs: 60_000, pollIntervalMs: 0 },
  );
  const first = await cycles.run();
  cycles.commit(first);
  const second = await cycles.run();
  cycles.commit(second);
  await cycles.close();
  return second.changes;
}

describe("hold cycles: a signal that arrives during the read", () => {
  it("explains the change the read found (a release, not a takeover)", async () => {
    const changes = await runTwice((emit, read) => {
      if (read === 1) emit([{ key: "e/orders", kind: "release", event: "DELETE", at: new Date().toISOString() }]);
    });
    expect(changes).toMatchObject([{ kind: "HOLDER_CHANGED", fromHolder: "pod-a", toHolder: "pod-b", ending: "RELEASED" }]);
  });

  it("an ending that arrives during the read outweighs a change signalled before it", async () => {
    const changes = await runTwice((emit, read) => {
      // During the first read: pod-b's write, read by the second cycle; during the second: pod-a's delete.
      if (read === 0) emit([{ key: "e/orders", kind: "change", event: "PUT", at: new Date().toISOString() }]);
      if (read === 1) emit([{ key: "e/orders", kind: "release", event: "DELETE", at: new Date().toISOString() }]);
    });
    expect(changes).toMatchObject([{ kind: "HOLDER_CHANGED", ending: "RELEASED", details: { hint: "DELETE" } }]);
  });

  it("without one, a holder replaced before its expiry was taken over", async () => {
    const changes = await runTwice(() => undefined);
    expect(changes).toMatchObject([{ kind: "HOLDER_CHANGED", ending: "TAKEN_OVER" }]);
  });
});
