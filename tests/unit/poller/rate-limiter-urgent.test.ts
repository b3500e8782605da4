import { afterEach, describe, expect, it, vi } from "vitest";

import { createRateLimiter } from "@/lib/poller/rate-limiter";

describe("rate limiter priority", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("starts an urgent task before the regular ones already waiting, within the same budget", async () => {
    vi.useFakeTimers();
    let clock = 0;
    const limiter = createRateLimiter({ requestsPerSecond: 2, maxConcurrency: 10, now: () => clock });
    const order: string[] = [];
    const task = (name: string) => async () => {
      order.push(name);
    };
    const regular = ["r1", "r2", "r3", "r4"].map((name) => limiter.run(task(name)));
    const urgent = ["u1", "u2"].map((name) => limiter.run(task(name), 1, { isUrgent: true }));
    await vi.advanceTimersByTimeAsync(0);
    // The bucket held two: r1 and r2 started at once; u1 and u2 jump ahead of r3 and r4.
    expect(order).toEqual(["r1", "r2"]);
    for (let i = 0; i < 4; i++) {
      clock += 500;
      await vi.advanceTimersByTimeAsync(500);
    }
    await Promise.all([...regular, ...urgent]);
    expect(order).toEqual(["r1", "r2", "u1", "u2", "r3", "r4"]);
    expect(limiter.takeRequestCount()).toBe(6);
  });
});
