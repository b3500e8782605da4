import { describe, expect, it } from "vitest";

import {
  type CounterBackend,
  type CounterEvent,
  type CountsBody,
  createExclusivityClient,
  createInProcessCounter,
  type ExclusivityClientOptions,
} from "@/lib/exclusivity-client";

type Sent = { url: string; headers: Headers; events: CounterEvent[]; body: unknown };

/** A fetch that records each request and answers from a list (the last answer repeats). */
function fakeFetch(answers: (() => Response)[] = [() => Response.json({ accepted: 1, duplicates: 0, rejected: 0, errors: [] })]) {
  const sent: Sent[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const body: unknown = JSON.parse(String(init?.body));
    sent.push({ url: String(input), headers: new Headers(init?.headers), events: Array.isArray(body) ? (body as CounterEvent[]) : [], body });
    const answer = answers[Math.min(sent.length - 1, answers.length - 1)]!;
    return answer();
  };
  return { fetch, sent };
}

function client(overrides: Partial<ExclusivityClientOptions> & Pick<ExclusivityClientOptions, "fetch">) {
  const errors: Error[] = [];
  const instance = createExclusivityClient({
    counter: createInProcessCounter(),
    baton: { url: "http://baton.test/", token: "bat_test" },
    service: "orders",
    worker: "w1",
    flushIntervalMs: 60_000,
    onError: (error) => errors.push(error),
    ...overrides,
  });
  return { instance, errors };
}

/** Resolves when `count` callers have arrived; lets a test hold workers inside a key together. */
function barrier(count: number): () => Promise<void> {
  let arrived = 0;
  let release!: () => void;
  const allIn = new Promise<void>((resolve) => (release = resolve));
  return async () => {
    if (++arrived === count) release();
    await allIn;
  };
}

describe("withExclusivity", () => {
  it("reports every increment with the counter seen, and no violation when workers take turns", async () => {
    const { fetch, sent } = fakeFetch();
    const { instance } = client({ fetch });
    for (let i = 0; i < 3; i++) {
      const entry = await instance.withExclusivity("user-1", (e) => e, { subscription: "orders-sub", partition: 2, traceId: `t${i}` });
      expect(entry).toEqual({ counter: 0, isViolation: false });
    }
    await instance.close();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe("http://baton.test/api/v1/exclusivity-events");
    expect(sent[0]!.headers.get("authorization")).toBe("Bearer bat_test");
    expect(sent[0]!.headers.get("content-type")).toBe("application/json");
    expect(sent[0]!.events.map((e) => [e.key, e.counter, e.service, e.worker, e.subscription, e.partition, e.traceId])).toEqual([
      ["user-1", 0, "orders", "w1", "orders-sub", 2, "t0"],
      ["user-1", 0, "orders", "w1", "orders-sub", 2, "t1"],
      ["user-1", 0, "orders", "w1", "orders-sub", 2, "t2"],
    ]);
    for (const event of sent[0]!.events) expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(instance.stats()).toMatchObject({ increments: 3, violations: 0, sent: 3, dropped: 0, buffered: 0 });
  });

  it("reports a violation for each worker that enters while others are inside", async () => {
    const { fetch, sent } = fakeFetch();
    const { instance } = client({ fetch, report: "violations" });
    const allInside = barrier(3);
    const entries = await Promise.all(
      [1, 2, 3].map(() =>
        instance.withExclusivity("user-2", async (entry) => {
          await allInside();
          return entry;
        }),
      ),
    );
    await instance.flush();
    expect(entries.map((e) => e.counter).sort()).toEqual([0, 1, 2]);
    expect(
      sent
        .flatMap((s) => s.events)
        .map((e) => e.counter)
        .sort(),
    ).toEqual([1, 2]);
    // Everyone left: the next entry sees nobody.
    expect(await instance.withExclusivity("user-2", (e) => e)).toEqual({ counter: 0, isViolation: false });
    await instance.close();
  });

  it("names the workers inside on a violation, with their entry times, and nothing on other events", async () => {
    const { fetch, sent } = fakeFetch();
    const { instance } = client({ fetch });
    const before = Date.now();
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstInside!: () => void;
    const isFirstInside = new Promise<void>((resolve) => (firstInside = resolve));
    const first = instance.withExclusivity("user-3", async () => {
      firstInside();
      await firstHeld;
    });
    await isFirstInside;
    await new Promise((resolve) => setTimeout(resolve, 30));
    const second = await instance.withExclusivity("user-3", (entry) => entry);
    releaseFirst();
    await first;
    await instance.close();
    expect(second).toEqual({ counter: 1, isViolation: true });
    const [clean, violation] = sent.flatMap((s) => s.events);
    expect(clean).not.toHaveProperty("othersInside");
    expect(violation!.othersInside).toHaveLength(1);
    const other = violation!.othersInside![0]!;
    expect(other.worker).toBe("w1");
    expect(other.enteredAt).toBeGreaterThanOrEqual(before);
    // The first entry was held ~30 ms before the second came in.
    expect(violation!.observedAt - other.enteredAt).toBeGreaterThanOrEqual(25);
  });

  it("refuses an unknown reporting mode", () => {
    const { fetch } = fakeFetch();
    expect(() => client({ fetch, report: "sometimes" as "all" })).toThrow(/report must be one of all, violations\+counts, violations/);
  });

  it("keeps keys apart", async () => {
    const { fetch } = fakeFetch();
    const { instance } = client({ fetch });
    const allInside = barrier(2);
    const entries = await Promise.all(
      ["a", "b"].map((key) =>
        instance.withExclusivity(key, async (entry) => {
          await allInside();
          return entry;
        }),
      ),
    );
    expect(entries.every((e) => !e.isViolation)).toBe(true);
    await instance.close();
  });

  it("decrements when fn throws, and passes the error on", async () => {
    const { fetch } = fakeFetch();
    const { instance } = client({ fetch });
    await expect(instance.withExclusivity("k", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect((await instance.withExclusivity("k", (e) => e)).counter).toBe(0);
    await instance.close();
  });

  it("runs fn when the counter fails, reports the failure, and sends no event", async () => {
    const { fetch, sent } = fakeFetch();
    const broken: CounterBackend = { enter: () => Promise.reject(new Error("ECONNREFUSED")), exit: () => Promise.reject(new Error("unreachable")) };
    const { instance, errors } = client({ fetch, counter: broken });
    expect(await instance.withExclusivity("k", (entry) => entry)).toEqual({ counter: null, isViolation: false });
    await instance.close();
    expect(sent).toHaveLength(0);
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/enter failed for key "k": ECONNREFUSED/)]);
    expect(instance.stats().counterErrors).toBe(1);
  });

  it("refuses work after close", async () => {
    const { fetch } = fakeFetch();
    const { instance } = client({ fetch });
    await instance.close();
    await expect(instance.withExclusivity("k", () => 1)).rejects.toThrow(/closed/);
  });

  it("needs exactly one counter backend", () => {
    const { fetch } = fakeFetch();
    expect(() => createExclusivityClient({ baton: { url: "http://x", token: "t" }, service: "s", worker: "w", fetch })).toThrow(/pass redis .* or counter/);
  });
});

/** A backend whose enters wait until the test answers them (exits answer at once). */
function heldCounter() {
  const inner = createInProcessCounter();
  const held: (() => void)[] = [];
  const counter: CounterBackend = {
    enter: (key, entry) => new Promise((resolve, reject) => held.push(() => inner.enter(key, entry).then(resolve, reject))),
    exit: (key, entryId) => inner.exit(key, entryId),
  };
  return {
    counter,
    held,
    /** Answers every enter held so far. */
    answerAll() {
      for (const answer of held.splice(0)) answer();
    },
  };
}

describe("close()", () => {
  it("waits for the entries already sent to be answered, and reports their increments", async () => {
    const { fetch, sent } = fakeFetch();
    const held = heldCounter();
    const { instance, errors } = client({ fetch, counter: held.counter });
    const work = instance.withExclusivity("k", (entry) => entry.counter, { subscription: "orders-sub" });
    expect(held.held).toHaveLength(1);
    let isClosed = false;
    const closing = instance.close().then(() => (isClosed = true));
    // Refused from now on, while the entry sent before close() is still out.
    await expect(instance.withExclusivity("k2", () => 1)).rejects.toThrow(/closed/);
    expect(isClosed).toBe(false);
    held.answerAll();
    expect(await work).toBe(0);
    await closing;
    expect(errors).toEqual([]);
    expect(sent.flatMap((s) => s.events).map((e) => [e.key, e.counter, e.subscription])).toEqual([["k", 0, "orders-sub"]]);
    expect(instance.stats()).toMatchObject({ increments: 1, sent: 1, buffered: 0 });
  });

  it("stops waiting after requestTimeoutMs; an entry answered later is counted in stats and told to onError, not lost silently", async () => {
    const { fetch, sent } = fakeFetch();
    const held = heldCounter();
    const { instance, errors } = client({ fetch, counter: held.counter, requestTimeoutMs: 20 });
    const work = instance.withExclusivity("late", () => "done");
    await instance.close();
    expect(sent).toEqual([]);
    held.answerAll();
    expect(await work).toBe("done");
    expect(instance.stats()).toMatchObject({ increments: 1, sent: 0 });
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/entry into key "late" was answered after close\(\) had stopped reporting/)]);
  });

  it("returns the same promise when called twice", async () => {
    const { fetch } = fakeFetch();
    const { instance } = client({ fetch });
    expect(instance.close()).toBe(instance.close());
    await instance.close();
  });
});

describe("withExclusivity's edges", () => {
  it("runs fn when the backend rejects with something that is not an Error, and says so", async () => {
    const { fetch } = fakeFetch();
    const odd: CounterBackend = { enter: () => Promise.reject(undefined), exit: async () => undefined };
    const { instance, errors } = client({ fetch, counter: odd });
    expect(await instance.withExclusivity("k", (entry) => entry)).toEqual({ counter: null, isViolation: false });
    expect(errors.map((e) => e.message)).toEqual(['exclusivity counter enter failed for key "k": undefined']);
    await instance.close();
  });

  it("runs fn when the backend throws instead of rejecting", async () => {
    const { fetch } = fakeFetch();
    const throwing: CounterBackend = {
      enter: () => {
        throw new Error("sync boom");
      },
      exit: async () => undefined,
    };
    const { instance, errors } = client({ fetch, counter: throwing });
    expect(await instance.withExclusivity("k", () => "ran")).toBe("ran");
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/enter failed for key "k": sync boom/)]);
    await instance.close();
  });

  it("awaits a thenable that is not a promise, and exits only after it settled", async () => {
    const { fetch } = fakeFetch();
    const { instance } = client({ fetch });
    let settle!: (value: string) => void;
    // biome-ignore lint/suspicious/noThenProperty: the test is of a thenable that is not a promise
    const thenable = { then: (onFulfilled: (value: string) => void) => void (settle = onFulfilled) };
    const running = instance.withExclusivity("k", () => thenable as unknown as Promise<string>);
    await expect.poll(() => settle).toBeTypeOf("function");
    // Still inside: a second entry sees it.
    expect(await instance.withExclusivity("k", (entry) => entry.counter)).toBe(1);
    settle("late result");
    expect(await running).toBe("late result");
    expect(await instance.withExclusivity("k", (entry) => entry.counter)).toBe(0);
    await instance.close();
  });

  it("passes fn's synchronous throw on, after exiting", async () => {
    const { fetch } = fakeFetch();
    const { instance } = client({ fetch });
    await expect(
      instance.withExclusivity("k", () => {
        throw new Error("sync fn boom");
      }),
    ).rejects.toThrow("sync fn boom");
    expect((await instance.withExclusivity("k", (e) => e)).counter).toBe(0);
    await instance.close();
  });
});

describe("reporting", () => {
  it("sends full batches of maxBatch events", async () => {
    const { fetch, sent } = fakeFetch();
    const { instance } = client({ fetch, maxBatch: 3 });
    for (let i = 0; i < 7; i++) await instance.withExclusivity(`k${i}`, () => undefined);
    await instance.flush();
    expect(sent.map((s) => s.events.length)).toEqual([3, 3, 1]);
    expect(new Set(sent.flatMap((s) => s.events.map((e) => e.id))).size).toBe(7);
    await instance.close();
  });

  it("flushes on its own every flushIntervalMs", async () => {
    const { fetch, sent } = fakeFetch();
    const { instance } = client({ fetch, flushIntervalMs: 20 });
    await instance.withExclusivity("k", () => undefined);
    await expect.poll(() => sent.length, { timeout: 2_000 }).toBe(1);
    await instance.close();
  });

  it("retries 503 (honouring Retry-After) and network errors with the same ids", async () => {
    const { fetch, sent } = fakeFetch([
      () => new Response('{"error":{}}', { status: 503, headers: { "retry-after": "0" } }),
      () => {
        throw new TypeError("fetch failed");
      },
      () => Response.json({ accepted: 2, duplicates: 0, rejected: 0, errors: [] }),
    ]);
    const { instance, errors } = client({ fetch });
    await instance.withExclusivity("a", () => undefined);
    await instance.withExclusivity("b", () => undefined);
    await instance.flush();
    expect(sent).toHaveLength(3);
    expect(sent[2]!.events.map((e) => e.id)).toEqual(sent[0]!.events.map((e) => e.id));
    expect(errors).toEqual([]);
    expect(instance.stats()).toMatchObject({ sent: 2, dropped: 0 });
    await instance.close();
  });

  it("drops a batch Baton refuses for good (401) without retrying, and says so", async () => {
    const { fetch, sent } = fakeFetch([() => new Response('{"error":{"code":"invalid_token"}}', { status: 401 })]);
    const { instance, errors } = client({ fetch });
    await instance.withExclusivity("a", () => undefined);
    await instance.flush();
    expect(sent).toHaveLength(1);
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/dropped 1 events after 1 attempt\(s\): Baton answered 401/)]);
    expect(instance.stats()).toMatchObject({ sent: 0, dropped: 1 });
    await instance.close();
  });

  it("gives up after maxAttempts", async () => {
    const { fetch, sent } = fakeFetch([() => new Response("", { status: 500 })]);
    const { instance, errors } = client({ fetch, maxAttempts: 3 });
    await instance.withExclusivity("a", () => undefined);
    await instance.flush();
    expect(sent).toHaveLength(3);
    expect(errors).toHaveLength(1);
    expect(instance.stats().dropped).toBe(1);
    await instance.close();
  });

  it("passes rejected items on to onError", async () => {
    const { fetch } = fakeFetch([
      () => Response.json({ accepted: 0, duplicates: 0, rejected: 1, errors: [{ index: 0, field: "key", message: "must be at most 512 characters" }] }),
    ]);
    const { instance, errors } = client({ fetch });
    await instance.withExclusivity("k".repeat(600), () => undefined);
    await instance.flush();
    expect(errors.map((e) => e.message)).toEqual(["Baton rejected 1 event(s); first: #0 key must be at most 512 characters"]);
    await instance.close();
  });

  it("keeps at most maxBufferedEvents, dropping the oldest", async () => {
    const { fetch, sent } = fakeFetch();
    const { instance, errors } = client({ fetch, maxBufferedEvents: 5, maxBatch: 100 });
    for (let i = 0; i < 8; i++) await instance.withExclusivity(`k${i}`, () => undefined);
    expect(instance.stats()).toMatchObject({ buffered: 5, dropped: 3 });
    expect(errors).toHaveLength(1);
    await instance.flush();
    expect(sent[0]!.events.map((e) => e.key)).toEqual(["k3", "k4", "k5", "k6", "k7"]);
    await instance.close();
  });
});

describe("in-process counter", () => {
  it("forgets an entry older than ttlMs (a crashed worker) and removes an exited one", async () => {
    let nowMs = Date.now();
    const counter = createInProcessCounter({ ttlMs: 1_000, now: () => nowMs });
    await counter.enter("k", { entryId: "crashed", worker: "pod-a" });
    nowMs += 400;
    expect(await counter.enter("k", { entryId: "b", worker: "pod-b" })).toEqual({ othersCount: 1, others: [{ worker: "pod-a", insideForMs: 400 }] });
    nowMs += 600;
    // pod-a entered 1,000 ms ago: pruned; pod-b (600 ms) is still inside.
    expect(await counter.enter("k", { entryId: "c", worker: "pod-c" })).toEqual({ othersCount: 1, others: [{ worker: "pod-b", insideForMs: 600 }] });
    await counter.exit("k", "b");
    await counter.exit("k", "c");
    expect(await counter.enter("k", { entryId: "d", worker: "pod-d" })).toEqual({ othersCount: 0, others: [] });
  });
});

describe("violations+counts reporting", () => {
  it("sends violations as events and every other increment as per-minute counts per subscription and topic", async () => {
    const { fetch, sent } = fakeFetch([() => Response.json({ accepted: 1, duplicates: 0, rejected: 0, errors: [] })]);
    const { instance, errors } = client({ fetch, report: "violations+counts" });
    for (let i = 0; i < 3; i++) await instance.withExclusivity(`k${i}`, () => undefined, { subscription: "orders-sub", topic: "t1" });
    await instance.withExclusivity("k9", () => undefined, { subscription: "orders-sub", topic: "t2" });
    await instance.withExclusivity("k9", () => undefined);
    const allInside = barrier(2);
    await Promise.all([1, 2].map(() => instance.withExclusivity("hot", () => allInside(), { subscription: "orders-sub", topic: "t1" })));
    // flush() leaves the current minute alone: Baton keeps only the first body of a minute.
    await instance.flush();
    const countsUrl = "http://baton.test/api/v1/exclusivity-counts";
    const minuteNow = Math.floor(Date.now() / 60_000) * 60_000;
    const countsBeforeClose = sent.filter((s) => s.url === countsUrl && (s.body as CountsBody).minute === new Date(minuteNow).toISOString());
    expect(countsBeforeClose).toEqual([]);
    await instance.close();
    expect(errors).toEqual([]);
    const events = sent.flatMap((s) => s.events);
    expect(events.map((e) => [e.key, e.counter])).toEqual([["hot", 1]]);
    const bodies = sent.filter((s) => s.url === countsUrl).map((s) => s.body as CountsBody);
    const groups = bodies.flatMap((b) => b.counts.map((c) => ({ ...c, minute: b.minute })));
    // The test may straddle a minute boundary: compare the sums per group.
    const sums = new Map<string, number>();
    for (const g of groups) sums.set(`${g.subscription ?? ""}|${g.topic ?? ""}`, (sums.get(`${g.subscription ?? ""}|${g.topic ?? ""}`) ?? 0) + g.increments);
    expect(Object.fromEntries(sums)).toEqual({ "orders-sub|t1": 4, "orders-sub|t2": 1, "|": 1 });
    for (const body of bodies) {
      expect(body).toMatchObject({ service: "orders", worker: "w1", mode: "violations+counts" });
      expect(body.clientId).toMatch(/^[0-9a-f-]{36}$/);
      expect(Date.parse(body.minute) % 60_000).toBe(0);
    }
    expect(instance.stats()).toMatchObject({ increments: 7, violations: 1, countsSent: 6, countsPending: 0, countsDropped: 0 });
  });

  it("retries a minute's counts with the same body and drops them after maxAttempts, saying so", async () => {
    const { fetch, sent } = fakeFetch([() => new Response("", { status: 503, headers: { "retry-after": "0" } })]);
    const { instance, errors } = client({ fetch, report: "violations+counts", maxAttempts: 3 });
    await instance.withExclusivity("k", () => undefined);
    await instance.close();
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((s) => JSON.stringify(s.body))).size).toBe(1);
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/dropped the counts of .* \(1 increments\) after 3 attempt\(s\): Baton answered 503/)]);
    expect(instance.stats()).toMatchObject({ countsSent: 0, countsDropped: 1 });
  });
});
