import { describe, expect, it } from "vitest";

import { type CounterBackend, type CounterEvent, createExclusivityClient, createInProcessCounter, type ExclusivityClientOptions } from "@/lib/exclusivity-client";

type Sent = { url: string; headers: Headers; events: CounterEvent[] };

/** A fetch that records each request and answers from a list (the last answer repeats). */
function fakeFetch(answers: (() => Response)[] = [() => Response.json({ accepted: 1, duplicates: 0, rejected: 0, errors: [] })]) {
  const sent: Sent[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    sent.push({ url: String(input), headers: new Headers(init?.headers), events: JSON.parse(String(init?.body)) as CounterEvent[] });
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
    const entries = await Promise.all([1, 2, 3].map(() => instance.withExclusivity("user-2", async (entry) => (await allInside(), entry))));
    await instance.flush();
    expect(entries.map((e) => e.counter).sort()).toEqual([0, 1, 2]);
    expect(sent.flatMap((s) => s.events).map((e) => e.counter).sort()).toEqual([1, 2]);
    // Everyone left: the next entry sees nobody.
    expect(await instance.withExclusivity("user-2", (e) => e)).toEqual({ counter: 0, isViolation: false });
    await instance.close();
  });

  it("keeps keys apart", async () => {
    const { fetch } = fakeFetch();
    const { instance } = client({ fetch });
    const allInside = barrier(2);
    const entries = await Promise.all(["a", "b"].map((key) => instance.withExclusivity(key, async (entry) => (await allInside(), entry))));
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
    const broken: CounterBackend = { increment: () => Promise.reject(new Error("ECONNREFUSED")), decrement: () => Promise.reject(new Error("unreachable")) };
    const { instance, errors } = client({ fetch, counter: broken });
    expect(await instance.withExclusivity("k", (entry) => entry)).toEqual({ counter: null, isViolation: false });
    await instance.close();
    expect(sent).toHaveLength(0);
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/increment failed for key "k": ECONNREFUSED/)]);
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
    const { fetch } = fakeFetch([() => Response.json({ accepted: 0, duplicates: 0, rejected: 1, errors: [{ index: 0, field: "key", message: "must be at most 512 characters" }] })]);
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
