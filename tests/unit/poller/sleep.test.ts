import { describe, expect, it } from "vitest";

import { sleep } from "@/lib/sleep";

describe("sleep", () => {
  it("removes its abort listener when it ends on time (no leak across poll cycles)", async () => {
    const controller = new AbortController();
    let added = 0;
    let removed = 0;
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => {
      added++;
      add(...args);
    }) as typeof signal.addEventListener;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      removed++;
      remove(...args);
    }) as typeof signal.removeEventListener;
    for (let i = 0; i < 20; i++) await sleep(1, signal);
    expect(added).toBe(20);
    expect(removed).toBe(20);
  });

  it("ends at once when aborted", async () => {
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    controller.abort();
    await expect(pending).resolves.toBeUndefined();
  });
});
