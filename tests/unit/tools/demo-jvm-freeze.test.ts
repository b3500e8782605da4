import { describe, expect, it } from "vitest";

import { DEMO_BROKER_KEEPALIVE_SECONDS, FAST_SCHEDULE, JVM_SERVICE, NORMAL_SCHEDULE } from "@/tools/demo/demo-plan";

// The demo's JVM pod freeze (SIGSTOP) catches an overlap only if the broker drops the frozen
// pod while it is frozen: the broker closes a connection whose ping went unanswered for one
// keep-alive interval at the next one, so up to two intervals after the freeze, and then waits
// Pulsar's failover delay (1 s) before the standby gets the message in hand.
const FAILOVER_DELAY_MS = 1_000;

describe("the demo's JVM freeze", () => {
  it.each([
    ["normal", NORMAL_SCHEDULE],
    ["fast", FAST_SCHEDULE],
  ])("outlasts two broker keep-alive intervals and the failover delay in the %s schedule", (_name, schedule) => {
    expect(schedule.jvmFrozenMs).toBeGreaterThan(2 * DEMO_BROKER_KEEPALIVE_SECONDS * 1_000 + FAILOVER_DELAY_MS);
    expect(schedule.jvmFreezeAttempts).toBeGreaterThan(0);
  });

  it("runs a Failover subscription with a standby for the frozen pod", () => {
    expect(JVM_SERVICE.subscriptionType).toBe("Failover");
    expect(JVM_SERVICE.workers.length).toBeGreaterThanOrEqual(2);
  });
});
