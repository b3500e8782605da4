import { describe, expect, it } from "vitest";

import { every } from "@/tools/demo/demo-scenarios";

/** A promise and the function that settles it, to hold a step in flight until the test says. */
function deferred(): { promise: Promise<void>; fail: (error: Error) => void } {
  let fail: (error: Error) => void = () => {};
  const promise = new Promise<void>((_, reject) => (fail = reject));
  return { promise, fail };
}

describe("every (the demo's repeated scenario steps)", () => {
  it("reports a step that failed while the demo ran", async () => {
    const lines: string[] = [];
    const step = deferred();
    let started = false;
    const stop = every(
      0,
      60_000,
      () => {
        started = true;
        return step.promise;
      },
      (line) => lines.push(line),
    );
    await expect.poll(() => started).toBe(true);
    step.fail(new Error("Baton refused the deployment"));
    await expect.poll(() => lines).toEqual(["scenario failed: Baton refused the deployment"]);
    stop();
  });

  it("says nothing of a step the stop cut short (Ctrl-C stops Baton while a rollout is under way)", async () => {
    const lines: string[] = [];
    const step = deferred();
    let started = false;
    let settled = false;
    const stop = every(
      0,
      60_000,
      () => {
        started = true;
        return step.promise.finally(() => {
          settled = true;
        });
      },
      (line) => lines.push(line),
    );
    await expect.poll(() => started).toBe(true);
    stop();
    step.fail(new Error("fetch failed"));
    await expect.poll(() => settled).toBe(true);
    // The step's rejection has run through every's handler by the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toEqual([]);
  });
});
