import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { startRedisServer, stopRedisServers, type TestRedisServer, uniquePrefix } from "@/tests/support/redis-servers";
import { connectRedlock, type Redlock } from "@/tools/redis/redlock";

// The demo's Redlock client against three real, test-owned masters.
describe("connectRedlock over three masters", () => {
  let servers: TestRedisServer[];
  let admins: Redis[];
  let sched: Redlock;
  let other: Redlock;
  const prefix = uniquePrefix("redlock");
  const key = `${prefix}scheduler:leader`;

  const valuesOnMasters = () => Promise.all(admins.map((admin) => admin.get(key)));

  beforeAll(async () => {
    servers = await Promise.all([startRedisServer(), startRedisServer(), startRedisServer()]);
    admins = servers.map((server) => new Redis(server.url));
    // The stopped-master test makes these reconnect: expected, and asserted through the results.
    for (const admin of admins) admin.on("error", () => undefined);
    sched = await connectRedlock(servers.map((server) => server.url));
    other = await connectRedlock(servers.map((server) => server.url));
  });

  afterEach(async () => {
    await Promise.all(admins.map((admin) => admin.del(key)));
  });

  afterAll(async () => {
    await sched?.close();
    await other?.close();
    for (const admin of admins ?? []) admin.disconnect();
    await stopRedisServers(servers ?? []);
  });

  it("takes the lock with the caller's value on every master, and nobody else can", async () => {
    const taken = await sched.acquire(key, "sched-a:1", 5_000);
    expect(taken).toMatchObject({ accepted: 3, masters: 3, lease: { key, value: "sched-a:1", ttlMs: 5_000 } });
    expect(taken.lease!.validUntilMs).toBeGreaterThan(Date.now());
    expect(await valuesOnMasters()).toEqual(["sched-a:1", "sched-a:1", "sched-a:1"]);
    const refused = await other.acquire(key, "sched-b:1", 5_000);
    expect(refused).toEqual({ lease: null, accepted: 0, masters: 3 });
    expect(await valuesOnMasters()).toEqual(["sched-a:1", "sched-a:1", "sched-a:1"]);
  });

  it("gives back what a minority accepted", async () => {
    await admins[0]!.set(key, "sched-c:1", "PX", 5_000);
    await admins[1]!.set(key, "sched-c:1", "PX", 5_000);
    const refused = await sched.acquire(key, "sched-a:2", 5_000);
    expect(refused).toEqual({ lease: null, accepted: 1, masters: 3 });
    expect(await valuesOnMasters()).toEqual(["sched-c:1", "sched-c:1", null]);
  });

  it("extends its own lease and releases only its own value", async () => {
    const { lease } = await sched.acquire(key, "sched-a:3", 2_000);
    await admins[2]!.pexpire(key, 100);
    const extended = await sched.extend(lease!);
    expect(extended).toMatchObject({ accepted: 3, lease: { value: "sched-a:3" } });
    expect(await admins[2]!.pttl(key)).toBeGreaterThan(1_000);
    await admins[0]!.set(key, "sched-b:3");
    expect(await sched.release(extended.lease!)).toBe(2);
    expect(await valuesOnMasters()).toEqual(["sched-b:3", null, null]);
  });

  it("fails to extend a lease another worker took after it expired", async () => {
    const { lease } = await sched.acquire(key, "sched-a:4", 300);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await other.acquire(key, "sched-b:4", 5_000)).lease).not.toBeNull();
    // Past its validity the lease is not even tried; a lease still valid by its own clock is refused by the masters.
    expect(await sched.extend(lease!)).toEqual({ lease: null, accepted: 0, masters: 3 });
    expect(await sched.extend({ ...lease!, validUntilMs: Date.now() + 1_000 })).toMatchObject({ lease: null, accepted: 0 });
    expect(await valuesOnMasters()).toEqual(["sched-b:4", "sched-b:4", "sched-b:4"]);
  });

  it("holds with two of three masters when one is stopped", async () => {
    await servers[2]!.stop();
    try {
      const taken = await sched.acquire(key, "sched-a:5", 5_000);
      expect(taken).toMatchObject({ accepted: 2, masters: 3, lease: { value: "sched-a:5" } });
    } finally {
      await servers[2]!.restart();
    }
  });
});
