// Benchmark: how lock endings read in Baton against real lock servers under a seeded chaos
// schedule. Three redis-servers (SET NX PX holders on one, a node-redlock group over all three,
// two Redisson JVMs with a 3 s watchdog), a ZooKeeper 3.9.3 (three Curator JVMs, each in an
// InterProcessMutex and a LeaderLatch) and an etcd (`etcdctl lock --ttl 3` and `etcdctl elect`).
// Every few seconds (seeded) the holder of a lock is released, crashed (SIGKILL, or a client that
// stops renewing), or stalled (SIGSTOP for 0.5-2x its lease), and the crashed ones come back.
// Baton's real poller (the worker's, with its lease and PostgreSQL) watches each server; a second
// ZooKeeper poller is started while ZooKeeper does not answer yet (a TCP proxy that holds
// connections, as a port open during start-up does) and answers after --late-seconds.
//
// The truth is recorded apart from Baton: each server's state sampled every 50 ms (who holds each
// lock: a token, a Redisson hash field, the lowest ZooKeeper sequence node, the lowest etcd create
// revision), Redis keyspace events (`del` = released, `expired`) for the single-master locks, and
// for the others the schedule's own releases (a tenure during which its holder was told to
// release ended RELEASED; any other ended EXPIRED: a crash or a stall outlived the lease).
// Printed per kind: tenures seen / true tenures; endings right / judged, with the confusion
// (true -> Baton); false changes (a change where the truth had none); for the late ZooKeeper
// poller: tenures missed.
// Run: npm run bench:lock-endings [-- --seconds 120 --seed 7 --late-seconds 20]
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";

import { Etcd3 } from "etcd3";
import { Redis } from "ioredis";
import Redlock, { type Lock } from "redlock";

import { loadConfig, type ClusterConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { type Contender, startElectCandidate, startLockContender } from "@/tests/support/etcd-contenders";
import { startEtcdServer, stopEtcdServers } from "@/tests/support/etcd-servers";
import { type CuratorContender, startCuratorContender } from "@/tests/support/curator-contender";
import { createTestDb, registerCluster, startPoller, type RunningPoller } from "@/tests/support/poller-harness";
import { type RedissonContender, startRedissonContender } from "@/tests/support/redisson-contender";
import { startRedisServer, stopRedisServers, type TestRedisServer } from "@/tests/support/redis-servers";
import { startTcpProxy } from "@/tests/support/tcp-proxy";
import { startTestDatabase } from "@/tests/support/test-database";
import { openTestSession } from "@/tests/support/zookeeper-nodes";
import { startZookeeperServer } from "@/tests/support/zookeeper-server";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "120" }, seed: { type: "string", default: "7" }, "late-seconds": { type: "string", default: "20" } } });
const RUN_MS = Number(values.seconds) * 1000;
const LATE_MS = Number(values["late-seconds"]) * 1000;
const SAMPLE_MS = 50;
/** Leases: SET NX PX and Redlock 2 s (extended every 600 ms), Redisson's watchdog 3 s, ZooKeeper sessions 2 s, etcd lock 3 s. */
const REDIS_TTL_MS = 2_000;
const ZK_SESSION_MS = 2_000;
const ETCD_LOCK_TTL_S = 3;

type Ending = "RELEASED" | "EXPIRED";
type Tenure = { resource: string; identity: string; start: number; lastSeen: number; end: number | null; ending: Ending | null };
type Action = { resource: string; at: number; kind: "release" | "crash" | "stall" };

/** mulberry32: the schedule is the same for the same seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(Number(values.seed));
const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]!;
const between = (low: number, high: number) => low + random() * (high - low);
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Who holds each resource, from the servers' own state, sample by sample: the tenures. */
class Truth {
  readonly tenures: Tenure[] = [];
  private readonly open = new Map<string, Tenure>();
  readonly actions: Action[] = [];
  /** Redis keyspace endings per key, in arrival order. */
  readonly endingEvents = new Map<string, { at: number; ending: Ending }[]>();

  sample(resource: string, identity: string | null, at: number): void {
    const current = this.open.get(resource);
    if (current && current.identity === identity) {
      current.lastSeen = at;
      return;
    }
    if (current) {
      current.end = at;
      this.open.delete(resource);
    }
    if (identity !== null) {
      const tenure: Tenure = { resource, identity, start: at, lastSeen: at, end: null, ending: null };
      this.tenures.push(tenure);
      this.open.set(resource, tenure);
    }
  }

  /** The tenure in force at `at` (sampling slack: the one that ended within a sample is still it). */
  at(resource: string, at: number): Tenure | undefined {
    return this.tenures.find((t) => t.resource === resource && t.start <= at + SAMPLE_MS && (t.end === null || at < t.end));
  }

  /** Endings: a keyspace `del`/`expired` after the tenure's last sample where Redis said it; else the schedule's release. */
  settle(): void {
    for (const tenure of this.tenures) {
      if (tenure.end === null) continue;
      const event = this.endingEvents.get(tenure.resource)?.find((e) => e.at >= tenure.lastSeen - SAMPLE_MS && e.at <= tenure.end! + SAMPLE_MS);
      if (event) {
        tenure.ending = event.ending;
        continue;
      }
      const released = this.actions.some((a) => a.resource === tenure.resource && a.kind === "release" && a.at >= tenure.start - SAMPLE_MS && a.at <= tenure.end!);
      tenure.ending = released ? "RELEASED" : "EXPIRED";
    }
  }
}

const truth = new Truth();
const stopping = { value: false };

/** A SET NX PX or Redlock client as a service runs it: take, extend every 600 ms, release on command. */
type LoopClient = { name: string; isHolding(): boolean; release(): Promise<void>; crash(): void; stall(ms: number): void };

function startTokenClient(redis: Redis, key: string, name: string): LoopClient {
  let token: string | null = null;
  let pausedUntil = 0;
  let isCrashed = false;
  const loop = async () => {
    while (!stopping.value && !isCrashed) {
      if (Date.now() >= pausedUntil) {
        try {
          if (token === null) {
            const candidate = `${name}-${randomUUID().slice(0, 8)}`;
            if ((await redis.set(key, candidate, "PX", REDIS_TTL_MS, "NX")) === "OK") token = candidate;
          } else if ((await redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end", 1, key, token, REDIS_TTL_MS)) === 0) {
            token = null;
          }
        } catch (error) {
          if (!stopping.value) process.stderr.write(`[chaos] ${name}: ${(error as Error).message}\n`);
        }
      }
      await wait(token === null ? 100 : 600);
    }
  };
  void loop();
  return {
    name,
    isHolding: () => token !== null && Date.now() >= pausedUntil,
    async release() {
      const held = token;
      token = null;
      if (held) await redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end", 1, key, held);
    },
    crash() {
      isCrashed = true;
      token = null;
      setTimeout(() => {
        isCrashed = false;
        void loop();
      }, REDIS_TTL_MS * 1.5);
    },
    stall(ms) {
      pausedUntil = Date.now() + ms;
    },
  };
}

function startRedlockClient(redlock: Redlock, key: string, name: string): LoopClient {
  let lock: Lock | null = null;
  let pausedUntil = 0;
  let isCrashed = false;
  const loop = async () => {
    while (!stopping.value && !isCrashed) {
      if (Date.now() >= pausedUntil) {
        try {
          lock = lock === null ? await redlock.acquire([key], REDIS_TTL_MS, { retryCount: 0 }) : await lock.extend(REDIS_TTL_MS);
        } catch {
          // Taken by another (acquire) or lost (extend): try again as a contender.
          lock = null;
        }
      }
      await wait(lock === null ? 100 : 600);
    }
  };
  void loop();
  return {
    name,
    isHolding: () => lock !== null && Date.now() >= pausedUntil,
    async release() {
      const held = lock;
      lock = null;
      await held?.release().catch(() => undefined);
    },
    crash() {
      isCrashed = true;
      lock = null;
      setTimeout(() => {
        isCrashed = false;
        void loop();
      }, REDIS_TTL_MS * 1.5);
    },
    stall(ms) {
      pausedUntil = Date.now() + ms;
    },
  };
}

function clusterConfig(entry: Record<string, unknown>): ClusterConfig {
  return loadConfig({ BATON_CLUSTERS: JSON.stringify([entry]) }).clusters[0]!;
}

type Watched = { label: string; clusterId: number; resources: string[] };

async function readChanges(db: Db, clusterId: number) {
  return db.holderChange.findMany({
    where: { clusterId },
    orderBy: { newSeenAt: "asc" },
    select: { kind: true, ending: true, toHolder: true, oldSeenAt: true, newSeenAt: true, resource: { select: { resourceKey: true } } },
  });
}

/** First time Baton stored a holder for each resource (probed every 100 ms): the first tenure it saw. */
function probeFirstHeld(db: Db, watched: Watched[]): { firstHeld: Map<string, number>; stop(): void } {
  const firstHeld = new Map<string, number>();
  const timer = setInterval(() => {
    for (const w of watched) {
      void db.heldResource
        .findMany({ where: { clusterId: w.clusterId, holder: { not: null } }, select: { resourceKey: true } })
        .then((rows) => {
          for (const row of rows) if (!firstHeld.has(`${w.label}|${row.resourceKey}`)) firstHeld.set(`${w.label}|${row.resourceKey}`, Date.now());
        })
        .catch(() => undefined);
    }
  }, 100);
  return { firstHeld, stop: () => clearInterval(timer) };
}

async function report(db: Db, w: Watched, firstHeld: Map<string, number>, truthKey: (resource: string) => string): Promise<void> {
  const changes = await readChanges(db, w.clusterId);
  const seen = new Set<Tenure>();
  let judged = 0;
  let right = 0;
  let falseChanges = 0;
  const confusion = new Map<string, number>();
  for (const resource of w.resources) {
    const first = firstHeld.get(`${w.label}|${resource}`);
    const firstTenure = first === undefined ? undefined : truth.at(truthKey(resource), first);
    if (firstTenure) seen.add(firstTenure);
  }
  for (const change of changes) {
    const resource = truthKey(change.resource.resourceKey);
    const newAt = change.newSeenAt.getTime();
    const after = truth.at(resource, newAt);
    if (change.toHolder !== null && after) seen.add(after);
    if (change.kind === "HOLDER_APPEARED" || change.oldSeenAt === null) continue;
    const before = truth.at(resource, change.oldSeenAt.getTime());
    if (before && before === after) {
      falseChanges += 1;
      continue;
    }
    if (!before || before.ending === null || change.ending === null) continue;
    judged += 1;
    if (before.ending === change.ending) right += 1;
    else confusion.set(`${before.ending} read as ${change.ending}`, (confusion.get(`${before.ending} read as ${change.ending}`) ?? 0) + 1);
  }
  const trueTenures = truth.tenures.filter((t) => w.resources.map(truthKey).includes(t.resource)).length;
  const wrong = [...confusion].map(([what, n]) => `${n} ${what}`).join(", ") || "none wrong";
  console.log(`  ${w.label.padEnd(26)} tenures seen ${seen.size} / ${trueTenures} true; endings right ${right} / ${judged} judged (${wrong}); false changes ${falseChanges}`);
}

async function main(): Promise<void> {
  const database = await startTestDatabase();
  const db = createTestDb(database.url);
  const masters: TestRedisServer[] = [];
  for (let i = 0; i < 3; i++) masters.push(await startRedisServer({ notifyKeyspaceEvents: "K$gxh" }));
  const zookeeper = await startZookeeperServer({ tickTimeMs: 500 });
  const proxy = await startTcpProxy(zookeeper.port);
  const [etcd] = await Promise.all([startEtcdServer()]);
  const redisClients = masters.map((m) => new Redis(m.url, { maxRetriesPerRequest: 1 }));
  const samplers = masters.map((m) => new Redis(m.url));
  const subscriber = new Redis(masters[0]!.url);
  const zkSampler = await openTestSession(zookeeper.connectString, 10_000);
  const etcdClient = new Etcd3({ hosts: etcd!.url });
  const pollers: RunningPoller[] = [];
  const redisson: RedissonContender[] = [];
  const curators: CuratorContender[] = [];
  const etcdContenders = new Map<string, Contender>();
  const suffix = randomUUID().slice(0, 6);
  try {
    // The keyspace events of the single-master locks: the truth of how they ended.
    await subscriber.psubscribe("__keyspace@0__:*");
    subscriber.on("pmessage", (_pattern, channel: string, event: string) => {
      const key = `redis:${channel.slice("__keyspace@0__:".length)}`;
      const ending: Ending | null = event === "del" ? "RELEASED" : event === "expired" ? "EXPIRED" : null;
      if (ending) truth.endingEvents.set(key, [...(truth.endingEvents.get(key) ?? []), { at: Date.now(), ending }]);
    });

    // Baton: one poller per cluster, as the worker runs them.
    // Every cluster is registered before any poller starts: a registration waits on no poller's writes.
    const registered: { cluster: ClusterConfig; clusterId: number; label: string }[] = [];
    const start = async (label: string, entry: Record<string, unknown>, resources: string[]): Promise<Watched> => {
      const cluster = clusterConfig({ name: `chaos-${label}-${suffix}`, pollIntervalMs: 1_000, discoveryIntervalMs: 2_000, ...entry });
      const clusterId = await registerCluster(db, cluster);
      registered.push({ cluster, clusterId, label });
      return { label, clusterId, resources };
    };
    proxy.stall();
    const watched = [
      await start("redis", { kind: "redis", url: masters[0]!.url, patterns: [{ match: "lock:*" }, { match: "rlock:*", layout: "redisson" }] }, ["lock:a", "rlock:a"]),
      await start("redlock", { kind: "redis", urls: masters.map((m) => m.url), patterns: [{ match: "rl:*" }] }, ["rl:a"]),
      await start("zookeeper", { kind: "zookeeper", connectString: zookeeper.connectString, sessionTimeoutMs: 4_000, paths: [{ path: "/chaos/mutex" }, { path: "/chaos/latch" }] }, ["/chaos/mutex", "/chaos/latch"]),
      await start("zookeeper-late", { kind: "zookeeper", connectString: `127.0.0.1:${proxy.port}`, sessionTimeoutMs: 4_000, paths: [{ path: "/chaos/mutex" }, { path: "/chaos/latch" }] }, ["/chaos/mutex", "/chaos/latch"]),
      await start("etcd", { kind: "etcd", endpoints: [etcd!.url], prefixes: [{ prefix: "chaos/" }] }, ["chaos/lock-a", "chaos/elect-a"]),
    ];
    for (const { cluster, clusterId, label } of registered) pollers.push(startPoller({ databaseUrl: database.url, cluster, clusterId, pollerId: `chaos-${label}` }));
    const truthKey: Record<string, (resource: string) => string> = {
      redis: (r) => `redis:${r}`,
      redlock: (r) => `redis:${r}`,
      zookeeper: (r) => `zk:${r}`,
      "zookeeper-late": (r) => `zk:${r}`,
      etcd: (r) => `etcd:${r}`,
    };
    const probe = probeFirstHeld(db, watched);

    // The truth sampler: every 50 ms, each server's own answer.
    let isSampling = true;
    const sampling = (async () => {
      while (isSampling) {
        const at = Date.now();
        const [tokenA, hash, ...redlockValues] = await Promise.all([
          samplers[0]!.get("lock:a"),
          samplers[0]!.hgetall("rlock:a"),
          ...samplers.map((s) => s.get("rl:a")),
        ]).catch(() => [null, {}, null, null, null] as const);
        truth.sample("redis:lock:a", tokenA as string | null, at);
        truth.sample("redis:rlock:a", Object.keys(hash as Record<string, string>)[0] ?? null, at);
        const counts = new Map<string, number>();
        for (const v of redlockValues as (string | null)[]) if (v !== null) counts.set(v, (counts.get(v) ?? 0) + 1);
        truth.sample("redis:rl:a", [...counts].find(([, n]) => n >= 2)?.[0] ?? null, at);
        for (const path of ["/chaos/mutex", "/chaos/latch"]) {
          const children = await zkSampler.children(path).catch(() => [] as string[]);
          const lowest = [...children].sort((a, b) => Number(a.slice(-10)) - Number(b.slice(-10)))[0] ?? null;
          truth.sample(`zk:${path}`, lowest, at);
        }
        for (const prefix of ["chaos/lock-a/", "chaos/elect-a/"]) {
          const kvs = await etcdClient.getAll().prefix(prefix).exec().then((r) => r.kvs).catch(() => []);
          const lowest = [...kvs].sort((a, b) => Number(a.create_revision) - Number(b.create_revision))[0];
          truth.sample(`etcd:${prefix.slice(0, -1)}`, lowest ? lowest.key.toString() : null, at);
        }
        await wait(Math.max(0, SAMPLE_MS - (Date.now() - at)));
      }
    })();

    // The contenders.
    const tokenClients = ["t1", "t2", "t3"].map((name) => startTokenClient(redisClients[0]!, "lock:a", name));
    const redlock = new Redlock(redisClients, { retryCount: 0 });
    const redlockClients = ["r1", "r2", "r3"].map((name) => startRedlockClient(redlock, "rl:a", name));
    const startRedissonHolder = async (handle: string) => {
      const contender = await startRedissonContender(masters[0]!.url, { watchdogMs: 3_000 });
      redisson.push(contender);
      void contender.acquire(handle, "lock", "rlock:a");
      return { contender, handle, held: contender.next(handle, "acquired").then(() => true) };
    };
    const redissonHolders = await Promise.all(["j1", "j2"].map((h) => startRedissonHolder(h)));
    await zkSampler.mkdirp("/chaos/mutex").catch(() => undefined);
    await zkSampler.mkdirp("/chaos/latch").catch(() => undefined);
    const startCurator = async (id: string) => {
      const contender = await startCuratorContender(zookeeper.connectString, ZK_SESSION_MS);
      curators.push(contender);
      await contender.mutex(`m-${id}`, "/chaos/mutex");
      await contender.latch(`l-${id}`, "/chaos/latch", id);
      return contender;
    };
    const curatorById = new Map<string, CuratorContender>();
    for (const id of ["c1", "c2", "c3"]) curatorById.set(id, await startCurator(id));
    const readOwner = (path: string) =>
      new Promise<bigint | null>((resolve) =>
        zkSampler.client.exists(path, (error, stat) => resolve(error || !stat ? null : BigInt(`0x${Buffer.from(stat.ephemeralOwner).toString("hex")}`))),
      );
    const startEtcd = (name: string) => {
      const contender = name.startsWith("lock") ? startLockContender(etcd!.url, "chaos/lock-a", ETCD_LOCK_TTL_S, name) : startElectCandidate(etcd!.url, "chaos/elect-a", name);
      etcdContenders.set(name, contender);
    };
    for (const name of ["lock-1", "lock-2", "lock-3", "pod-1", "pod-2", "pod-3"]) startEtcd(name);

    // The schedule: every 1-3 s one lock's holder is released, crashed or stalled.
    const startedAt = Date.now();
    let isLate = true;
    const counts = { release: 0, crash: 0, stall: 0 };
    while (Date.now() - startedAt < RUN_MS) {
      if (isLate && Date.now() - startedAt >= LATE_MS) {
        proxy.restore();
        isLate = false;
      }
      await wait(between(1_000, 3_000));
      const target = pick(["lock:a", "rl:a", "rlock:a", "/chaos/mutex", "/chaos/latch", "chaos/lock-a", "chaos/elect-a"]);
      const kind = pick(["release", "release", "crash", "stall"] as const);
      const at = Date.now();
      const record = (resource: string) => {
        truth.actions.push({ resource, at, kind });
        counts[kind] += 1;
      };
      if (target === "lock:a" || target === "rl:a") {
        const holder = (target === "lock:a" ? tokenClients : redlockClients).find((c) => c.isHolding());
        if (!holder) continue;
        record(`redis:${target}`);
        if (kind === "release") await holder.release();
        else if (kind === "crash") holder.crash();
        else holder.stall(between(0.5, 2) * REDIS_TTL_MS);
      } else if (target === "rlock:a") {
        // Redisson: a release, or the holder's JVM killed (a stall is a kill here: the contender has no SIGSTOP).
        const index = await Promise.race(redissonHolders.map((h, i) => Promise.race([h.held.then(() => i), wait(10).then(() => -1)])));
        if (index < 0) continue;
        const holder = redissonHolders[index]!;
        record("redis:rlock:a");
        if (kind === "release") await holder.contender.release(holder.handle);
        else await holder.contender.kill();
        redissonHolders[index] = await startRedissonHolder(`j${Math.floor(random() * 1e6)}`);
      } else if (target === "/chaos/mutex" || target === "/chaos/latch") {
        const children = await zkSampler.children(target).catch(() => [] as string[]);
        const lowest = [...children].sort((a, b) => Number(a.slice(-10)) - Number(b.slice(-10)))[0];
        const owner = lowest ? await readOwner(`${target}/${lowest}`) : null;
        const entry = [...curatorById].find(([, c]) => owner !== null && BigInt(c.sessionId) === owner);
        if (!entry) continue;
        const [id, contender] = entry;
        record(`zk:${target}`);
        if (kind === "release") {
          if (target === "/chaos/mutex") {
            await contender.release(`m-${id}`);
            void contender.mutex(`m-${id}`, "/chaos/mutex");
          } else {
            await contender.close(`l-${id}`);
            void contender.latch(`l-${id}`, "/chaos/latch", id);
          }
        } else if (kind === "crash") {
          await contender.kill();
          curatorById.set(id, await startCurator(id));
        } else {
          contender.stall();
          setTimeout(() => contender.wake(), between(0.5, 2) * ZK_SESSION_MS);
        }
      } else {
        const prefix = `${target}/`;
        const kvs = await etcdClient.getAll().prefix(prefix).exec().then((r) => r.kvs).catch(() => []);
        const lowest = [...kvs].sort((a, b) => Number(a.create_revision) - Number(b.create_revision))[0];
        if (!lowest) continue;
        // The holder is the contender that printed the lowest key (etcdctl prints it once it holds).
        const holder = [...etcdContenders].find(([, c]) => c.output().includes(lowest.key.toString()));
        if (!holder) continue;
        const [name, contender] = holder;
        record(`etcd:${target}`);
        if (kind === "release") {
          contender.signal("SIGTERM");
          setTimeout(() => startEtcd(name), 200);
        } else if (kind === "crash") {
          await contender.kill();
          startEtcd(name);
        } else {
          contender.signal("SIGSTOP");
          setTimeout(() => contender.signal("SIGCONT"), between(0.5, 2) * ETCD_LOCK_TTL_S * 1000);
        }
      }
    }
    if (isLate) proxy.restore();
    stopping.value = true;
    // Baton's last reads of the final state: two poll intervals.
    await wait(2_500);
    isSampling = false;
    await sampling;
    probe.stop();
    truth.settle();

    console.log(
      `Lock endings under chaos: seed ${values.seed}, ${RUN_MS / 1000} s, ${counts.release} releases, ${counts.crash} crashes, ${counts.stall} stalls; ` +
        `truth sampled every ${SAMPLE_MS} ms; Baton polls every 1 s with change signals; the late ZooKeeper poller waited ${LATE_MS / 1000} s`,
    );
    for (const w of watched) await report(db, w, probe.firstHeld, truthKey[w.label]!);
    const late = watched.find((w) => w.label === "zookeeper-late")!;
    const lateChanges = await readChanges(db, late.clusterId);
    const lateSeen = new Set<Tenure>();
    for (const change of lateChanges) {
      const tenure = truth.at(truthKey["zookeeper-late"]!(change.resource.resourceKey), change.newSeenAt.getTime());
      if (tenure) lateSeen.add(tenure);
    }
    for (const resource of late.resources) {
      const first = probe.firstHeld.get(`zookeeper-late|${resource}`);
      const tenure = first === undefined ? undefined : truth.at(`zk:${resource}`, first);
      if (tenure) lateSeen.add(tenure);
    }
    const zkTenures = truth.tenures.filter((t) => t.resource.startsWith("zk:"));
    const afterAnswer = zkTenures.filter((t) => t.start >= startedAt + LATE_MS);
    console.log(
      `  zookeeper, Baton started before ZooKeeper answered: tenures missed ${zkTenures.filter((t) => !lateSeen.has(t)).length} / ${zkTenures.length} ` +
        `(${afterAnswer.filter((t) => !lateSeen.has(t)).length} / ${afterAnswer.length} of those that began after ZooKeeper answered)`,
    );
  } finally {
    stopping.value = true;
    for (const poller of pollers) await poller.stop().catch(() => undefined);
    for (const contender of redisson) await contender.kill().catch(() => undefined);
    for (const contender of curators) await contender.kill().catch(() => undefined);
    for (const contender of etcdContenders.values()) await contender.kill().catch(() => undefined);
    etcdClient.close();
    await zkSampler.close();
    for (const client of [...redisClients, ...samplers, subscriber]) client.disconnect();
    await proxy.close();
    await zookeeper.dispose();
    await stopEtcdServers(etcd ? [etcd] : []);
    await stopRedisServers(masters);
    await db.$disconnect();
    await database.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
