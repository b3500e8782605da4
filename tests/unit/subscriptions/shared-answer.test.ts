import { describe, expect, it } from "vitest";

import { createSharedAnswers } from "@/lib/subscriptions/shared-answer";

/** A computation that finishes when the test says so, counting how often it started. */
function controlled<T>() {
  let starts = 0;
  const pending: { resolve: (value: T) => void; reject: (error: Error) => void }[] = [];
  const compute = () => {
    starts++;
    return new Promise<T>((resolve, reject) => pending.push({ resolve, reject }));
  };
  return { compute, starts: () => starts, settle: (index: number) => pending[index]! };
}

describe("createSharedAnswers", () => {
  it("gives requests for the same key one computation while it runs", async () => {
    const answers = createSharedAnswers<string>();
    const board = controlled<string>();
    const first = answers.get("board", board.compute);
    const second = answers.get("board", board.compute);
    expect(board.starts()).toBe(1);
    board.settle(0).resolve("answer");
    expect(await Promise.all([first, second])).toEqual(["answer", "answer"]);
  });

  it("computes afresh once the answer is complete, and for another key at once", async () => {
    const answers = createSharedAnswers<string>();
    const board = controlled<string>();
    const first = answers.get("board", board.compute);
    void answers.get("other", board.compute);
    expect(board.starts()).toBe(2);
    board.settle(0).resolve("old");
    await first;
    const next = answers.get("board", board.compute);
    expect(board.starts()).toBe(3);
    board.settle(2).resolve("new");
    expect(await next).toBe("new");
  });

  it("shares a failure with the requests waiting for it, and does not keep it", async () => {
    const answers = createSharedAnswers<string>();
    const board = controlled<string>();
    const first = answers.get("board", board.compute);
    const second = answers.get("board", board.compute);
    board.settle(0).reject(new Error("database unavailable"));
    await expect(first).rejects.toThrow("database unavailable");
    await expect(second).rejects.toThrow("database unavailable");
    const retry = answers.get("board", board.compute);
    expect(board.starts()).toBe(2);
    board.settle(1).resolve("back");
    expect(await retry).toBe("back");
  });
});
