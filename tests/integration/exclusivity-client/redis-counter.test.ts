import { randomUUID } from "node:crypto";

import { Redis } from "ioredis";
import { afterAll, describe, expect, it, vi } from "vitest";

import {
  type CounterEvent,
  createExclusivityClient,
  createRedisCounter,
  type ExclusivityClientOptions,
  INSIDE_KEY_SUFFIX,
  MAX_OTHERS_INSIDE,
  type RedisLike,
} from "@/lib/exclusivity-client";
import { OPS_PER_CALL } from "@/lib/exclusivity-client/redis-counter";
import { startRedisServer } from "@/tests/support/redis-servers";

// Real Redis at 127.0.0.1:6379; every key carries a prefix of its own.
const redis = new Redis({ host: "127.0.0.1", port: 6379, maxRetriesPerRequest: 1 });
const prefix = `baton-test:${randomUUID()}:`;

afterAll(async () => {
  const leftovers = await redis.keys(`${prefix}*`);
  if (leftovers.length > 0) await redis.del(...leftovers);
  await redis.quit();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("createRedisCounter", () => {
  it("records who is inside, returns the others longest-inside first, and deletes the key when the last one exits", async () => {
    const counter = createRedisCounter(redis);
    const key = `${prefix}basic`;
    expect(await counter.enter(key, { entryId: "e1", worker: "pod-a" })).toEqual({ othersCount: 0, others: [] });
    await sleep(30);
    const second = await counter.enter(key, { entryId: "e2", worker: "pod-b" });
    expect(second.othersCount).toBe(1);
    expect(second.others.map((o) => o.worker)).toEqual(["pod-a"]);
    expect(second.others[0]!.insideForMs).toBeGreaterThanOrEqual(25);
    const third = await counter.enter(key, { entryId: "e3", worker: "pod:c" });
    expect(third.others.map((o) => o.worker)).toEqual(["pod-a", "pod-b"]);
    expect(third.others[0]!.insideForMs).toBeGreaterThanOrEqual(third.others[1]!.insideForMs);
    expect(await redis.hlen(key + INSIDE_KEY_SUFFIX)).toBe(3);
    await counter.exit(key, "e1");
    // A worker name with ':' survives the "<ms>:<worker>" encoding.
    expect((await counter.enter(key, { entryId: "e4", worker: "pod-d" })).others.map((o) => o.worker)).toEqual(["pod-b", "pod:c"]);
    for (const id of ["e2", "e3", "e4"]) await counter.exit(key, id);
    expect(await redis.exists(key + INSIDE_KEY_SUFFIX)).toBe(0);
    // Exiting an entry that is already gone is not an error.
    await counter.exit(key, "e4");
  });

  it("gives every entry the key's expiry of ttlMs, renewed by each entry", async () => {
    const counter = createRedisCounter(redis, { ttlMs: 5_000 });
    const key = `${prefix}ttl${INSIDE_KEY_SUFFIX}`;
    await counter.enter(`${prefix}ttl`, { entryId: "a", worker: "pod-a" });
    const first = await redis.pttl(key);
    expect(first).toBeGreaterThan(4_000);
    expect(first).toBeLessThanOrEqual(5_000);
    await sleep(200);
    await counter.enter(`${prefix}ttl`, { entryId: "b", worker: "pod-b" });
    expect(await redis.pttl(key)).toBeGreaterThan(first - 100);
    await counter.exit(`${prefix}ttl`, "a");
    await counter.exit(`${prefix}ttl`, "b");
  });

  it("prunes a crashed worker's entry once it is older than ttlMs, even while others keep the key busy", async () => {
    const counter = createRedisCounter(redis, { ttlMs: 300 });
    const key = `${prefix}crash`;
    // pod-a crashes inside: it entered and never exits.
    await counter.enter(key, { entryId: "crashed", worker: "pod-a" });
    // Back-to-back overlaps keep the key alive past pod-a's ttl...
    const seen: string[][] = [];
    for (let i = 0; i < 5; i++) {
      seen.push((await counter.enter(key, { entryId: `busy-${i}`, worker: `pod-${i}` })).others.map((o) => o.worker));
      await sleep(100);
      if (i > 0) await counter.exit(key, `busy-${i - 1}`);
    }
    // ...but pod-a is reported only while its entry is younger than 300 ms.
    expect(seen[0]).toContain("pod-a");
    expect(seen[4]).not.toContain("pod-a");
    expect(await redis.hexists(key + INSIDE_KEY_SUFFIX, "crashed")).toBe(0);
    await counter.exit(key, "busy-4");
  });

  it("forgets a key nobody enters again: it expires ttlMs after its last entry", async () => {
    const counter = createRedisCounter(redis, { ttlMs: 150 });
    const key = `${prefix}leak`;
    await counter.enter(key, { entryId: "crashed", worker: "pod-a" });
    await expect.poll(() => redis.exists(key + INSIDE_KEY_SUFFIX), { timeout: 2_000, interval: 50 }).toBe(0);
    expect(await counter.enter(key, { entryId: "next", worker: "pod-b" })).toEqual({ othersCount: 0, others: [] });
    await counter.exit(key, "next");
  });

  it("counts every other entry but names at most MAX_OTHERS_INSIDE of them", async () => {
    const counter = createRedisCounter(redis);
    const key = `${prefix}many`;
    const ids = Array.from({ length: MAX_OTHERS_INSIDE + 5 }, (_, i) => `e${i}`);
    for (const id of ids) await counter.enter(key, { entryId: id, worker: `pod-${id}` });
    const last = await counter.enter(key, { entryId: "last", worker: "pod-last" });
    expect(last.othersCount).toBe(ids.length);
    expect(last.others).toHaveLength(MAX_OTHERS_INSIDE);
    for (const id of [...ids, "last"]) await counter.exit(key, id);
    expect(await redis.exists(key + INSIDE_KEY_SUFFIX)).toBe(0);
  });

  it("keeps clear of an older client's plain counter under the same name", async () => {
    const counter = createRedisCounter(redis);
    const key = `${prefix}old-counter`;
    await redis.set(key, "3");
    expect(await counter.enter(key, { entryId: "new", worker: "pod-a" })).toEqual({ othersCount: 0, others: [] });
    await counter.exit(key, "new");
    expect(await redis.get(key)).toBe("3");
    await redis.del(key);
  });

  it("sees every concurrent entry exactly once under many connections", async () => {
    const connections = Array.from({ length: 8 }, () => new Redis({ host: "127.0.0.1", port: 6379 }));
    try {
      const key = `${prefix}concurrent`;
      const entries = connections.flatMap((connection, c) => Array.from({ length: 25 }, (_, i) => ({ connection, entryId: `c${c}-${i}` })));
      const seen = await Promise.all(entries.map(({ connection, entryId }) => createRedisCounter(connection).enter(key, { entryId, worker: entryId })));
      expect(seen.map((s) => s.othersCount).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i));
      await Promise.all(entries.map(({ connection, entryId }) => createRedisCounter(connection).exit(key, entryId)));
      expect(await redis.exists(key + INSIDE_KEY_SUFFIX)).toBe(0);
    } finally {
      await Promise.all(connections.map((c) => c.quit()));
    }
  });
});

/**
 * The real Redis, each script call recorded as the operations it carries ("enter:<id>",
 * "exit:<id>"). While `hold` is on, a call's answer (Redis has already run it) is kept from the
 * counter until `release()`: the call stays in flight for as long as the test needs.
 */
function observedRedis(target: Redis) {
  const calls: string[][] = [];
  const held: (() => void)[] = [];
  const observed = {
    calls,
    hold: false,
    /** Lets the oldest held call's answer through. */
    release() {
      const next = held.shift();
      if (!next) throw new Error("no call is held");
      next();
    },
    redis: {
      async eval(script, numkeys, ...args) {
        // ARGV after the keys: the TTL, the most others to name, then kind, entry id, worker per operation.
        calls.push(Array.from({ length: numkeys }, (_, i) => `${args[numkeys + 2 + 3 * i]}:${args[numkeys + 3 + 3 * i]}`));
        const reply = target.eval(script, numkeys, ...args);
        // Held answers may be failures: they are awaited below, after the hold.
        reply.catch(() => undefined);
        if (observed.hold) await new Promise<void>((resolve) => held.push(resolve));
        return reply;
      },
    } satisfies RedisLike,
  };
  return observed;
}

describe("createRedisCounter's batching (one script call for the operations issued meanwhile)", () => {
  it("sends an operation at once, alone, when no call is in flight", async () => {
    const observed = observedRedis(redis);
    const counter = createRedisCounter(observed.redis);
    const key = `${prefix}idle`;
    const entered = counter.enter(key, { entryId: "a", worker: "pod-a" });
    // No timer, no waiting for company: the call is made before enter() returns.
    expect(observed.calls).toEqual([["enter:a"]]);
    expect(await entered).toEqual({ othersCount: 0, others: [] });
    await counter.exit(key, "a");
    expect(await counter.enter(key, { entryId: "b", worker: "pod-b" })).toEqual({ othersCount: 0, others: [] });
    await counter.exit(key, "b");
    expect(observed.calls).toEqual([["enter:a"], ["exit:a"], ["enter:b"], ["exit:b"]]);
    expect(await redis.exists(key + INSIDE_KEY_SUFFIX)).toBe(0);
  });

  it("sends the operations issued while a call is in flight together in the next call, in the order issued, each answered on its own", async () => {
    const observed = observedRedis(redis);
    const counter = createRedisCounter(observed.redis);
    const [one, two] = [`${prefix}order-1`, `${prefix}order-2`];
    observed.hold = true;
    const first = counter.enter(one, { entryId: "a", worker: "pod-a" });
    const queued = [
      counter.enter(one, { entryId: "b", worker: "pod-b" }),
      counter.enter(two, { entryId: "x", worker: "pod-x" }),
      counter.exit(one, "a"),
      counter.enter(one, { entryId: "c", worker: "pod-c" }),
      counter.exit(one, "b"),
      counter.enter(two, { entryId: "y", worker: "pod-y" }),
    ];
    expect(observed.calls).toEqual([["enter:a"]]);
    observed.hold = false;
    observed.release();
    expect(await first).toEqual({ othersCount: 0, others: [] });
    const [b, x, exitA, c, exitB, y] = await Promise.all(queued);
    expect(observed.calls).toEqual([["enter:a"], ["enter:b", "enter:x", "exit:a", "enter:c", "exit:b", "enter:y"]]);
    // Within the call each operation ran in turn: b found a; c came after a's exit (b still inside).
    expect(b).toMatchObject({ othersCount: 1, others: [{ worker: "pod-a" }] });
    expect(x).toEqual({ othersCount: 0, others: [] });
    expect(exitA).toBeUndefined();
    expect(c).toMatchObject({ othersCount: 1, others: [{ worker: "pod-b" }] });
    expect(exitB).toBeUndefined();
    expect(y).toMatchObject({ othersCount: 1, others: [{ worker: "pod-x" }] });
    await Promise.all([counter.exit(one, "c"), counter.exit(two, "x"), counter.exit(two, "y")]);
    expect(await redis.exists(one + INSIDE_KEY_SUFFIX, two + INSIDE_KEY_SUFFIX)).toBe(0);
  });

  it(`puts at most ${OPS_PER_CALL} operations in a call: what was queued beyond goes in further calls at the same time`, async () => {
    const observed = observedRedis(redis);
    const counter = createRedisCounter(observed.redis);
    const key = `${prefix}bounded`;
    observed.hold = true;
    const first = counter.enter(key, { entryId: "first", worker: "pod-first" });
    const ids = Array.from({ length: 2 * OPS_PER_CALL + 50 }, (_, i) => `e${i}`);
    const entries = ids.map((id) => counter.enter(key, { entryId: id, worker: `pod-${id}` }));
    observed.hold = false;
    observed.release();
    const seen = await Promise.all([first, ...entries]);
    expect(observed.calls.map((call) => call.length)).toEqual([1, OPS_PER_CALL, OPS_PER_CALL, 50]);
    expect(observed.calls.flat()).toEqual(["enter:first", ...ids.map((id) => `enter:${id}`)]);
    // In the order issued: the n-th entry found the n before it.
    expect(seen.map((s) => s.othersCount)).toEqual(Array.from({ length: ids.length + 1 }, (_, i) => i));
    expect(seen.at(-1)!.others).toHaveLength(MAX_OTHERS_INSIDE);
    await Promise.all(["first", ...ids].map((id) => counter.exit(key, id)));
    // The exits, issued together: the first at once, the others batched behind it.
    expect(observed.calls.slice(4).map((call) => call.length)).toEqual([1, OPS_PER_CALL, OPS_PER_CALL, 50]);
    expect(await redis.exists(key + INSIDE_KEY_SUFFIX)).toBe(0);
  });

  it("fails exactly the operations of a failing call, with its error; the calls before and after it are answered", async () => {
    const observed = observedRedis(redis);
    const counter = createRedisCounter(observed.redis);
    const key = `${prefix}fails`;
    const wrongType = `${prefix}wrong-type`;
    // Not a hash: the enter script's HGETALL fails there, and with it the whole script call.
    await redis.set(wrongType + INSIDE_KEY_SUFFIX, "not a hash");
    observed.hold = true;
    const first = counter.enter(key, { entryId: "a", worker: "pod-a" });
    const failing = [counter.enter(wrongType, { entryId: "b1", worker: "pod-b" }), counter.enter(key, { entryId: "b2", worker: "pod-b" })];
    observed.release();
    // Once the first call's answer is in, the second is in flight (held): what is issued now goes in a third.
    expect(await first).toEqual({ othersCount: 0, others: [] });
    const after = counter.enter(key, { entryId: "c", worker: "pod-c" });
    observed.hold = false;
    observed.release();
    const results = await Promise.allSettled([...failing, after]);
    expect(observed.calls).toEqual([["enter:a"], ["enter:b1", "enter:b2"], ["enter:c"]]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "fulfilled"]);
    for (const failed of results.slice(0, 2)) expect(String((failed as PromiseRejectedResult).reason)).toMatch(/WRONGTYPE/);
    // b2 never ran (the script stopped at b1): c finds a only.
    expect((results[2] as PromiseFulfilledResult<unknown>).value).toMatchObject({ othersCount: 1, others: [{ worker: "pod-a" }] });
    await Promise.all([counter.exit(key, "a"), counter.exit(key, "c")]);
    await redis.del(wrongType + INSIDE_KEY_SUFFIX);
    expect(await redis.exists(key + INSIDE_KEY_SUFFIX)).toBe(0);
  });

  it("sends a busy client's enters and exits in a few calls, and every entry still sees exactly who is inside", async () => {
    const observed = observedRedis(redis);
    const errors: Error[] = [];
    const client = createExclusivityClient({
      counter: createRedisCounter(observed.redis),
      keyPrefix: prefix,
      baton: { url: "http://baton.test", token: "bat_test" },
      service: "busy",
      worker: "pod-a",
      report: "violations",
      fetch: async () => Response.json({ accepted: 0, duplicates: 0, rejected: 0, errors: [] }),
      onError: (error) => errors.push(error),
    });
    // 1,000 units of work at once: 500 keys, each entered by two of them (the second while the
    // first is inside: the held-open sections below make sure of it).
    let inside = 0;
    let release!: () => void;
    const allInside = new Promise<void>((resolve) => (release = resolve));
    const seen = await Promise.all(
      Array.from({ length: 1_000 }, (_, i) =>
        client.withExclusivity(`k-${i % 500}`, async (entry) => {
          if (++inside === 1_000) release();
          await allInside;
          return entry.counter;
        }),
      ),
    );
    await client.close();
    expect(errors).toEqual([]);
    expect(seen.slice(0, 500).every((counter) => counter === 0)).toBe(true);
    expect(seen.slice(500).every((counter) => counter === 1)).toBe(true);
    expect(client.stats()).toMatchObject({ increments: 1_000, violations: 500, counterErrors: 0 });
    // 2,000 operations; one call per operation would be 2,000 calls.
    expect(observed.calls.flat()).toHaveLength(2_000);
    expect(observed.calls.length).toBeLessThanOrEqual(20);
    expect(await redis.keys(`${prefix}busy:*`)).toEqual([]);
  });
});

describe("createRedisCounter while Redis is down", () => {
  it("fails each operation with the client's error, holds nothing back while failing, and batches again once Redis answers", async () => {
    const server = await startRedisServer();
    // Fails queued commands after two reconnection attempts 50 ms apart.
    const connection = new Redis(server.url, { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    connection.on("error", () => undefined);
    try {
      const observed = observedRedis(connection);
      const counter = createRedisCounter(observed.redis);
      expect(await counter.enter("k", { entryId: "before", worker: "pod-a" })).toEqual({ othersCount: 0, others: [] });
      await server.stop();
      await expect.poll(() => connection.status, { timeout: 5_000, interval: 20 }).not.toBe("ready");

      // The first goes at once; the two issued while it is in flight wait for it, then go together.
      const during = await Promise.allSettled(["d1", "d2", "d3"].map((id) => counter.enter("k", { entryId: id, worker: "pod-a" })));
      expect(during.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
      for (const failed of during) expect(String((failed as PromiseRejectedResult).reason)).toMatch(/max retries per request|Connection is closed/i);
      expect(observed.calls.slice(1)).toEqual([["enter:d1"], ["enter:d2", "enter:d3"]]);

      // Once a call failed, nothing waits for another call's failure: each operation goes at once,
      // as it did with one call per operation.
      const sent = observed.calls.length;
      const failing = [
        counter.enter("k", { entryId: "f1", worker: "pod-a" }),
        counter.exit("k", "before"),
        counter.enter("k", { entryId: "f2", worker: "pod-a" }),
      ];
      expect(observed.calls.slice(sent)).toEqual([["enter:f1"], ["exit:before"], ["enter:f2"]]);
      expect((await Promise.allSettled(failing)).map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);

      // The exclusivity client on top behaves as before batching: fn runs, the failure is reported,
      // no exit is tried for an entry that never happened.
      const errors: Error[] = [];
      const client = createExclusivityClient({
        counter,
        baton: { url: "http://baton.test", token: "bat_test" },
        service: "down",
        worker: "pod-a",
        fetch: async () => Response.json({ accepted: 0, duplicates: 0, rejected: 0, errors: [] }),
        onError: (error) => errors.push(error),
      });
      const beforeClient = observed.calls.length;
      expect(await client.withExclusivity("k", (entry) => entry)).toEqual({ counter: null, isViolation: false });
      expect(observed.calls.slice(beforeClient)).toEqual([[expect.stringMatching(/^enter:/)]]);
      expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/exclusivity counter enter failed for key "k"/)]);
      expect(client.stats().counterErrors).toBe(1);
      await client.close();

      await server.restart();
      await expect
        .poll(
          () =>
            counter.enter("k", { entryId: "back", worker: "pod-a" }).then(
              () => true,
              () => false,
            ),
          { timeout: 10_000, interval: 100 },
        )
        .toBe(true);
      // Batching is back: while a call is in flight, the next operation waits.
      observed.hold = true;
      const afterOutage = [counter.exit("k", "back"), counter.enter("k", { entryId: "z", worker: "pod-a" })];
      const sentAfter = observed.calls.length;
      expect(observed.calls.at(-1)).toEqual(["exit:back"]);
      observed.hold = false;
      observed.release();
      const [, z] = await Promise.all(afterOutage);
      expect(observed.calls.slice(sentAfter)).toEqual([["enter:z"]]);
      // The restarted server is empty: "before" and the failed entries were never there.
      expect(z).toEqual({ othersCount: 0, others: [] });
    } finally {
      connection.disconnect();
      await server.dispose();
    }
  });
});

/** The script calls a client sends through ioredis: one pre-encoded EVAL per call, never ioredis's own eval. */
function watchedCalls(connection: Redis) {
  const sent = vi.spyOn(connection, "sendCommand");
  const evalCalls = vi.spyOn(connection, "eval");
  return {
    /** Script calls sent so far. */
    calls: () => sent.mock.calls.filter(([command]) => (command as { name: string }).name === "eval").length,
    ioredisEvalCalls: () => evalCalls.mock.calls.length,
  };
}

function exclusivityClient(redis: Redis, service: string, errors: Error[], overrides: Partial<ExclusivityClientOptions> = {}) {
  return createExclusivityClient({
    redis,
    keyPrefix: prefix,
    baton: { url: "http://baton.test", token: "bat_test" },
    service,
    worker: "pod-a",
    report: "violations",
    fetch: async () => Response.json({ accepted: 0, duplicates: 0, rejected: 0, errors: [] }),
    onError: (error) => errors.push(error),
    ...overrides,
  });
}

describe("createRedisCounter on an ioredis client (one pre-encoded command per call)", () => {
  it("writes ioredis's keyPrefix and UTF-8 keys, ids and names as ioredis would", async () => {
    const connection = new Redis({ host: "127.0.0.1", port: 6379, keyPrefix: `${prefix}ioredis:` });
    try {
      const watched = watchedCalls(connection);
      const counter = createRedisCounter(connection);
      const key = "clé:ü→€";
      expect(await counter.enter(key, { entryId: "é-1", worker: "pöd-ä" })).toEqual({ othersCount: 0, others: [] });
      expect(await counter.enter(key, { entryId: "é-2", worker: "pod:b" })).toMatchObject({ othersCount: 1, others: [{ worker: "pöd-ä" }] });
      expect(await redis.hkeys(`${prefix}ioredis:${key}${INSIDE_KEY_SUFFIX}`)).toEqual(expect.arrayContaining(["é-1", "é-2"]));
      await counter.exit(key, "é-1");
      expect(await counter.enter(key, { entryId: "é-3", worker: "pod-c" })).toMatchObject({ othersCount: 1, others: [{ worker: "pod:b" }] });
      await Promise.all([counter.exit(key, "é-2"), counter.exit(key, "é-3")]);
      expect(await redis.exists(`${prefix}ioredis:${key}${INSIDE_KEY_SUFFIX}`)).toBe(0);
      expect(watched.calls()).toBeGreaterThanOrEqual(5);
      expect(watched.ioredisEvalCalls()).toBe(0);
    } finally {
      await connection.quit();
    }
  });

  it("keeps a client's units of work in the order issued across the calls they are split into", async () => {
    const connection = new Redis({ host: "127.0.0.1", port: 6379 });
    try {
      const watched = watchedCalls(connection);
      const errors: Error[] = [];
      const client = exclusivityClient(connection, "boundaries", errors);
      // 2 × OPS_PER_CALL + 50 units of work on one key, all held inside until every one entered: the
      // first enter goes alone, the others in three calls behind it.
      const units = 2 * OPS_PER_CALL + 50;
      let inside = 0;
      let release!: () => void;
      const allInside = new Promise<void>((resolve) => (release = resolve));
      const seen = await Promise.all(
        Array.from({ length: units }, () =>
          client.withExclusivity("one-key", async (entry) => {
            if (++inside === units) release();
            await allInside;
            return entry.counter;
          }),
        ),
      );
      // The n-th unit of work issued found the n before it inside, whichever call carried it.
      expect(seen).toEqual(Array.from({ length: units }, (_, i) => i));
      expect(watched.calls()).toBeLessThanOrEqual(10);
      expect(watched.ioredisEvalCalls()).toBe(0);
      await client.close();
      expect(errors).toEqual([]);
      expect(client.stats()).toMatchObject({ increments: units, violations: units - 1, counterErrors: 0 });
      expect(await redis.keys(`${prefix}boundaries:*`)).toEqual([]);
    } finally {
      await connection.quit();
    }
  });

  it("close() waits for an entry Redis has not answered yet and reports it", async () => {
    const server = await startRedisServer();
    const connection = new Redis(server.url);
    const admin = new Redis(server.url);
    try {
      const reported: CounterEvent[] = [];
      const errors: Error[] = [];
      const client = exclusivityClient(connection, "closing", errors, {
        report: "all",
        fetch: async (_input, init) => {
          reported.push(...(JSON.parse(String(init?.body)) as CounterEvent[]));
          return Response.json({ accepted: 1, duplicates: 0, rejected: 0, errors: [] });
        },
      });
      await connection.ping();
      // Scripts wait while writes are paused: the entry is sent, not answered.
      await admin.call("CLIENT", "PAUSE", "60000", "WRITE");
      const work = client.withExclusivity("k", (entry) => entry.counter);
      let isClosed = false;
      const closing = client.close().then(() => (isClosed = true));
      await expect.poll(async () => /cmd=eval/.test(String(await admin.call("CLIENT", "LIST", "TYPE", "normal")))).toBe(true);
      expect(isClosed).toBe(false);
      await admin.call("CLIENT", "UNPAUSE");
      expect(await work).toBe(0);
      await closing;
      expect(errors).toEqual([]);
      expect(reported.map((event) => [event.key, event.counter])).toEqual([["k", 0]]);
    } finally {
      connection.disconnect();
      admin.disconnect();
      await server.dispose();
    }
  });

  it("settles every unit of work when Redis goes down with operations in flight, reports each failure, and counts again once it is back", async () => {
    const server = await startRedisServer();
    // Fails queued commands after a reconnection attempt 50 ms later.
    const connection = new Redis(server.url, { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    connection.on("error", () => undefined);
    try {
      const errors: Error[] = [];
      const client = exclusivityClient(connection, "outage", errors);
      const units = OPS_PER_CALL + 100;
      let inside = 0;
      let release!: () => void;
      const allInside = new Promise<void>((resolve) => (release = resolve));
      const held = Array.from({ length: units }, (_, i) =>
        client.withExclusivity(`k-${i % 3}`, async (entry) => {
          if (++inside === units) release();
          await allInside;
          return entry.counter;
        }),
      );
      await allInside;
      await server.stop();
      await expect.poll(() => connection.status, { timeout: 5_000, interval: 20 }).not.toBe("ready");
      // Entered while up, leaving while down: every exit fails, in the calls it was batched into.
      // Entering while down: each enter fails, and its fn runs uncounted.
      const during = Array.from({ length: 50 }, (_, i) => client.withExclusivity(`k-${i % 3}`, (entry) => entry.counter));
      const [heldResults, duringResults] = await Promise.all([Promise.all(held), Promise.all(during)]);
      expect(heldResults.every((counter) => typeof counter === "number")).toBe(true);
      expect(duringResults).toEqual(Array.from({ length: 50 }, () => null));
      expect(client.stats()).toMatchObject({ increments: units, counterErrors: units + 50 });
      expect(errors.filter((e) => /exit failed/.test(e.message))).toHaveLength(units);
      expect(errors.filter((e) => /enter failed/.test(e.message))).toHaveLength(50);

      await server.restart();
      await expect
        .poll(
          () =>
            client
              .withExclusivity("after", (entry) => entry.counter)
              .then(
                (counter) => counter !== null,
                () => false,
              ),
          { timeout: 10_000, interval: 100 },
        )
        .toBe(true);
      // The restarted server is empty: the entries whose exits failed are not there to be seen.
      expect(await client.withExclusivity("k-0", (entry) => entry.counter)).toBe(0);
      await client.close();
    } finally {
      connection.disconnect();
      await server.dispose();
    }
  });
});
