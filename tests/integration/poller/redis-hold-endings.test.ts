import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { openHoldCycles } from "@/lib/poller/hold-cycles";
import type { SourceCycles } from "@/lib/poller/source-cycles";
import type { HoldHint } from "@/lib/poller/contract/hold-observation";
import { parseRedisClusterConfig } from "@/lib/sources/redis";
import { toHoldSource } from "@/lib/sources/redis/redis-runtime";
import { pollUntil } from "@/tests/support/poll-until";
import { type RedissonContender, startRedissonContender } from "@/tests/support/redisson-contender";
import { startRedisServer, stopRedisServers, type TestRedisServer } from "@/tests/support/redis-servers";

// How a hold ended when the next holder's writes reach Baton before its next read: the shared hold
// cycles against a real redis-server with keyspace notifications, and a real Redisson client. The
// cycles run only when the test says so, once every event of the round has arrived: "both within
// one read" made certain, not hoped for.

let server: TestRedisServer;
let admin: Redis;
let contender: RedissonContender;
let cycles: SourceCycles;
const hints: HoldHint[] = [];

async function cycle() {
  const result = await cycles.run();
  cycles.commit(result);
  return result;
}

/** Waits until the key's signals include `events` in this order, after the first `from` signals. */
async function waitForEvents(key: string, from: number, events: string[]): Promise<void> {
  await pollUntil(
    async () =>
      hints
        .slice(from)
        .filter((hint) => hint.key === key && hint.event !== null)
        .map((hint) => hint.event),
    (seen) => {
      let at = 0;
      for (const event of seen) if (event === events[at]) at += 1;
      return at === events.length;
    },
    { description: `${events.join(", ")} on ${key}`, maxAttempts: 200 },
  );
}

/** Takes `key` for `holder` with SET NX PX and reads it once its signals are in: the hold Baton knows. */
async function takeAndRead(key: string, holder: string): Promise<void> {
  const from = hints.length;
  await admin.set(key, holder, "PX", 30_000, "NX");
  await waitForEvents(key, from, ["set", "expire"]);
  await cycle();
}

beforeAll(async () => {
  server = await startRedisServer({ notifyKeyspaceEvents: "K$gxh" });
  admin = new Redis(server.url, { maxRetriesPerRequest: 0 });
  contender = await startRedissonContender(server.url);
  const config = {
    ...parseRedisClusterConfig({ kind: "redis", name: "endings", url: server.url, patterns: [{ match: "lock:*" }, { match: "rlock:*", layout: "redisson" }] }),
    pollIntervalMs: 60_000,
  };
  const source = toHoldSource(config);
  // The source as the worker uses it, its signals also recorded here: the test knows when they arrived.
  const recorded = {
    ...source,
    watch: (onHints: (batch: HoldHint[]) => void, onResync: (reason: string) => void) =>
      source.watch((batch) => {
        hints.push(...batch);
        onHints(batch);
      }, onResync),
  };
  cycles = await openHoldCycles(recorded, [], { resourceKind: "REDIS_LOCK", discoveryIntervalMs: 60_000, pollIntervalMs: 60_000 });
}, 120_000);

afterAll(async () => {
  await cycles?.close();
  await contender?.kill();
  admin?.disconnect();
  await stopRedisServers(server ? [server] : []);
});

describe("hold endings when the next holder writes before the read", () => {
  it("a `del`, then the next holder's SET NX PX: released, not taken over", async () => {
    await takeAndRead("lock:release", "pod-a");
    const from = hints.length;
    await admin.del("lock:release");
    await admin.set("lock:release", "pod-b", "PX", 30_000, "NX");
    await waitForEvents("lock:release", from, ["del", "set", "expire"]);
    const { changes } = await cycle();
    expect(changes).toMatchObject([{ kind: "HOLDER_CHANGED", fromHolder: "pod-a", toHolder: "pod-b", ending: "RELEASED", details: { hint: "del" } }]);
  });

  it("an expiry, then the next holder's SET NX PX in the same moment: expired, not taken over", async () => {
    await takeAndRead("lock:expiry", "pod-a");
    const from = hints.length;
    // The holder shortened its lease (an extension with a shorter TTL) and died: it ends long
    // before the expiry Baton last read.
    await admin.pexpire("lock:expiry", 50);
    await waitForEvents("lock:expiry", from, ["expire", "expired"]);
    await admin.set("lock:expiry", "pod-b", "PX", 30_000, "NX");
    await waitForEvents("lock:expiry", from, ["expire", "expired", "set", "expire"]);
    const { changes } = await cycle();
    expect(changes).toMatchObject([{ kind: "HOLDER_CHANGED", fromHolder: "pod-a", toHolder: "pod-b", ending: "EXPIRED", details: { hint: "expired" } }]);
  });

  it("a Redisson unlock, then the waiting thread's acquire (hincrby, pexpire): released, not taken over", async () => {
    const first = await contender.acquire("r1", "lock", "rlock:handover");
    await contender.next("r1", "acquired");
    const second = await contender.acquire("r2", "lock", "rlock:handover");
    await waitForEvents("rlock:handover", 0, ["hincrby", "expire"]);
    await cycle();
    const from = hints.length;
    await contender.release("r1");
    await contender.next("r2", "acquired");
    await waitForEvents("rlock:handover", from, ["del", "hincrby", "expire"]);
    const { changes } = await cycle();
    const owner = (threadId: string) => `${contender.clientId.slice(0, 8)}:${threadId}`;
    expect(changes).toMatchObject([
      { kind: "HOLDER_CHANGED", fromHolder: owner(first.threadId), toHolder: owner(second.threadId), ending: "RELEASED", details: { hint: "del" } },
    ]);
    await contender.release("r2");
  });

  it("a Redisson watchdog expiry (the holder's JVM killed), then the waiting thread's acquire: expired, not taken over", async () => {
    // Two JVMs with a 3 s watchdog (renewed every second): the holder dies without unlocking, its
    // lease runs out and the other JVM's waiting thread takes the lock in the same moment
    // (`expired`, `hincrby`, `expire` before Baton's next read). Redisson renews to the full
    // lease, so the key never outlives the PTTL Baton read last: the clock alone also says
    // expired, and the signal is what tells it (details.hint); the code before the fix kept the
    // next holder's `expire` instead.
    const holder = await startRedissonContender(server.url, { watchdogMs: 3_000 });
    const next = await startRedissonContender(server.url, { watchdogMs: 3_000 });
    try {
      const key = "rlock:watchdog";
      const first = await holder.acquire("w1", "lock", key);
      await holder.next("w1", "acquired");
      const second = await next.acquire("w2", "lock", key);
      // A renewal (an `expire` after the acquire's) is in: Baton reads the lease the watchdog keeps.
      await waitForEvents(key, 0, ["hincrby", "expire", "expire"]);
      await cycle();
      const from = hints.length;
      await holder.kill();
      await next.next("w2", "acquired");
      await waitForEvents(key, from, ["expired", "hincrby", "expire"]);
      const { changes } = await cycle();
      expect(changes).toMatchObject([
        {
          kind: "HOLDER_CHANGED",
          fromHolder: `${holder.clientId.slice(0, 8)}:${first.threadId}`,
          toHolder: `${next.clientId.slice(0, 8)}:${second.threadId}`,
          ending: "EXPIRED",
          details: { hint: "expired" },
        },
      ]);
      await next.release("w2");
    } finally {
      await holder.kill();
      await next.kill();
    }
  });
});
