import { afterEach, describe, expect, it, vi } from "vitest";

import { createCommandLimiter, toCommandLimiter } from "@/lib/sources/redis/command-limiter";
import { createRateLimiter } from "@/lib/poller/rate-limiter";

describe("command limiter", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("counts a pipeline of N as N and makes the next task wait for the debt", async () => {
    vi.useFakeTimers();
    let clock = 0;
    const limiter = createCommandLimiter({ commandsPerSecond: 100, now: () => clock });
    await limiter.run(async () => "big", 250);
    expect(limiter.takeRequestCount()).toBe(250);
    let isStarted = false;
    const next = limiter.run(async () => {
      isStarted = true;
    });
    clock = 1_400;
    await vi.advanceTimersByTimeAsync(1_400);
    expect(isStarted).toBe(false);
    // 150 in debt + 1: paid after 1.51 s of refill.
    clock = 1_520;
    await vi.advanceTimersByTimeAsync(120);
    await next;
    expect(isStarted).toBe(true);
    expect(limiter.takeRequestCount()).toBe(1);
  });

  it("makes the poller's RateLimiter count commands", async () => {
    const limiter = toCommandLimiter(createRateLimiter({ requestsPerSecond: 10_000, maxConcurrency: 4 }));
    expect(await limiter.run(async () => 42, 5)).toBe(42);
    expect(limiter.takeRequestCount()).toBe(5);
  });
});
