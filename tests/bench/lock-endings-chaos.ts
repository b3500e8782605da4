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
import { createRequire } from "node:module";
import path from "node:path";
import { parseArgs } from "node:util";

import { Etcd3 } from "etcd3";
import { Redis } from "ioredis";
import type RedlockClass from "redlock";
import type { Lock } from "redlock";

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

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "120" }, seed: { type: "string", default: "7" }, "late-seconds": { type: "string", default: "20" } },
});
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
/** node-zookeeper-client and a stalled contender can leave a call unanswered: a bound keeps the sampler and the schedule going. */
function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  return Promise.race([promise.catch(() => fallback), wait(ms).then(() => fallback)]);
}
// redlock's ES build, as tsx loads it for this CommonJS script, yields a class without its methods;
// its CommonJS build (what `require` picks) is the one node-redlock users run.
const Redlock = (createRequire(path.join(process.cwd(), "package.json"))("redlock") as { default: typeof RedlockClass }).default;

/** Who holds each resource, from the servers' own state, sample by sample: the tenures. */
class Truth {
  readonly tenures: Tenure[] = [];
  private readonly open = new Map<string, Tenure>();
  readonly actions: Action[] = [];
  /** Redis keyspace endings per key, in arrival order. */
  readonly endingEvents = new Map<string, { at: number; ending: Ending }[]>();
  /** Time between rounds of samples: on a loaded machine more than SAMPLE_MS. */
  readonly gaps: number[] = [];

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
      const released = this.actions.some(
        (a) => a.resource === tenure.resource && a.kind === "release" && a.at >= tenure.start - SAMPLE_MS && a.at <= tenure.end!,
      );
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
          } else if (
            (await redis.eval(
              "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end",
              1,
              key,
              token,
              REDIS_TTL_MS,
            )) === 0
          ) {
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

function startRedlockClient(redlock: InstanceType<typeof Redlock>, key: string, name: string): LoopClient {
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

function describeGaps(gaps: number[]): string {
  const sorted = [...gaps].sort((a, b) => a - b);
  return sorted.length === 0 ? "none" : `median ${sorted[Math.floor(sorted.length / 2)]} ms, max ${sorted.at(-1)} ms`;
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
  // A change the sampler has not caught up with yet is no false one: its new tenure is looked for
  // up to the largest gap between two rounds of samples after the change.
  const slackMs = Math.max(...truth.gaps, SAMPLE_MS);
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
    const after = truth.at(resource, newAt + slackMs);
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
  console.log(
    `  ${w.label.padEnd(26)} tenures seen ${seen.size} / ${trueTenures} true; endings right ${right} / ${judged} judged (${wrong}); false changes ${falseChanges}`,
  );
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
  let zkSampler = await openTestSession(zookeeper.connectString, 10_000);
  let zkUnanswered = 0;
  await zkSampler.mkdirp("/chaos/mutex");
  await zkSampler.mkdirp("/chaos/latch");
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
      await start("redis", { kind: "redis", url: masters[0]!.url, patterns: [{ match: "lock:*" }, { match: "rlock:*", layout: "redisson" }] }, [
        "lock:a",
        "rlock:a",
      ]),
      await start("redlock", { kind: "redis", urls: masters.map((m) => m.url), patterns: [{ match: "rl:*" }] }, ["rl:a"]),
      await start(
        "zookeeper",
        { kind: "zookeeper", connectString: zookeeper.connectString, sessionTimeoutMs: 4_000, paths: [{ path: "/chaos/mutex" }, { path: "/chaos/latch" }] },
        ["/chaos/mutex", "/chaos/latch"],
      ),
      await start(
        "zookeeper-late",
        { kind: "zookeeper", connectString: `127.0.0.1:${proxy.port}`, sessionTimeoutMs: 4_000, paths: [{ path: "/chaos/mutex" }, { path: "/chaos/latch" }] },
        ["/chaos/mutex", "/chaos/latch"],
      ),
      await start("etcd", { kind: "etcd", endpoints: [etcd!.url], prefixes: [{ prefix: "chaos/" }] }, ["chaos/lock-a", "chaos/elect-a"]),
    ];
    for (const { cluster, clusterId, label } of registered)
      pollers.push(startPoller({ databaseUrl: database.url, cluster, clusterId, pollerId: `chaos-${label}` }));
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
      let previous: number | null = null;
      while (isSampling) {
        const at = Date.now();
        if (previous !== null) truth.gaps.push(at - previous);
        previous = at;
        const answers = await within(
          Promise.all([samplers[0]!.get("lock:a"), samplers[0]!.hgetall("rlock:a"), ...samplers.map((s) => s.get("rl:a"))]),
          1_000,
          null,
        );
        if (answers === null) continue;
        const [tokenA, hash, ...redlockValues] = answers;
        truth.sample("redis:lock:a", tokenA as string | null, at);
        truth.sample("redis:rlock:a", Object.keys(hash as Record<string, string>)[0] ?? null, at);
        const counts = new Map<string, number>();
        for (const v of redlockValues as (string | null)[]) if (v !== null) counts.set(v, (counts.get(v) ?? 0) + 1);
        truth.sample("redis:rl:a", [...counts].find(([, n]) => n >= 2)?.[0] ?? null, at);
        for (const path of ["/chaos/mutex", "/chaos/latch"]) {
          const children = await within(zkSampler.children(path), 1_000, null);
          // Unanswered is unknown, not free: the tenure goes on. A starved process can lose its
          // session (node-zookeeper-client never gets a new one): after three misses, a new one.
          if (children === null) {
            zkUnanswered += 1;
            if (zkUnanswered >= 3) {
              zkUnanswered = 0;
              void zkSampler.close().catch(() => undefined);
              zkSampler = await openTestSession(zookeeper.connectString, 10_000);
            }
            continue;
          }
          zkUnanswered = 0;
          const lowest = [...children].sort((a, b) => Number(a.slice(-10)) - Number(b.slice(-10)))[0] ?? null;
          truth.sample(`zk:${path}`, lowest, at);
        }
        for (const prefix of ["chaos/lock-a/", "chaos/elect-a/"]) {
          const kvs = await within(
            etcdClient
              .getAll()
              .prefix(prefix)
              .exec()
              .then((r) => r.kvs),
            1_000,
            null,
          );
          if (kvs === null) continue;
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
    let handles = 0;
    const nextHandle = (prefix: string) => `${prefix}${(handles += 1)}`;
    type RedissonHolder = { contender: RedissonContender; handle: string; isHolding: boolean };
    const joinRedisson = (holder: RedissonHolder) => {
      holder.handle = nextHandle("j");
      holder.isHolding = false;
      const handle = holder.handle;
      void holder.contender.acquire(handle, "lock", "rlock:a");
      void holder.contender.next(handle, "acquired").then(() => {
        if (holder.handle === handle) holder.isHolding = true;
      });
    };
    const startRedissonHolder = async (): Promise<RedissonHolder> => {
      const contender = await startRedissonContender(masters[0]!.url, { watchdogMs: 3_000 });
      redisson.push(contender);
      const holder: RedissonHolder = { contender, handle: "", isHolding: false };
      joinRedisson(holder);
      return holder;
    };
    const redissonHolders = await Promise.all([0, 1].map(() => startRedissonHolder()));
    type CuratorHolder = { contender: CuratorContender; mutex: string; latch: string };
    const startCurator = async (id: string): Promise<CuratorHolder> => {
      const contender = await startCuratorContender(zookeeper.connectString, ZK_SESSION_MS);
      curators.push(contender);
      const holder = { contender, mutex: nextHandle("m"), latch: nextHandle("l") };
      await contender.mutex(holder.mutex, "/chaos/mutex");
      await contender.latch(holder.latch, "/chaos/latch", id);
      return holder;
    };
    const curatorById = new Map<string, CuratorHolder>();
    for (const id of ["c1", "c2", "c3"]) curatorById.set(id, await startCurator(id));
    const readOwner = (path: string) =>
      new Promise<bigint | null>((resolve) =>
        zkSampler.client.exists(path, (error, stat) => resolve(error || !stat ? null : BigInt(`0x${Buffer.from(stat.ephemeralOwner).toString("hex")}`))),
      );
    const startEtcd = (name: string) => {
      const contender = name.startsWith("lock")
        ? startLockContender(etcd!.url, "chaos/lock-a", ETCD_LOCK_TTL_S, name)
        : startElectCandidate(etcd!.url, "chaos/elect-a", name);
      etcdContenders.set(name, contender);
    };
    for (const name of ["lock-1", "lock-2", "lock-3", "pod-1", "pod-2", "pod-3"]) startEtcd(name);

    type Kind = Action["kind"];
    /** Each lock: finds its holder as the servers say now, and what each action does to it (null: nobody holds it). */
    const targets: { resource: string; find(): Promise<((kind: Kind) => Promise<void>) | null> }[] = [
      ...(["lock:a", "rl:a"] as const).map((key) => ({
        resource: `redis:${key}`,
        async find() {
          const holder = (key === "lock:a" ? tokenClients : redlockClients).find((c) => c.isHolding());
          if (!holder) return null;
          return async (kind: Kind) => {
            if (kind === "release") await holder.release();
            else if (kind === "crash") holder.crash();
            else holder.stall(between(0.5, 2) * REDIS_TTL_MS);
          };
        },
      })),
      {
        resource: "redis:rlock:a",
        async find() {
          const index = redissonHolders.findIndex((h) => h.isHolding);
          if (index < 0) return null;
          const holder = redissonHolders[index]!;
          // The Redisson contender has no SIGSTOP: a stall is a crash here (its JVM killed).
          return async (kind: Kind) => {
            holder.isHolding = false;
            if (kind === "release") {
              await holder.contender.release(holder.handle);
              joinRedisson(holder);
              return;
            }
            await holder.contender.kill();
            void startRedissonHolder().then((next) => (redissonHolders[index] = next));
          };
        },
      },
      ...(["/chaos/mutex", "/chaos/latch"] as const).map((path) => ({
        resource: `zk:${path}`,
        async find() {
          const children = await within(zkSampler.children(path), 1_000, [] as string[]);
          const lowest = [...children].sort((a, b) => Number(a.slice(-10)) - Number(b.slice(-10)))[0];
          const owner = lowest ? await within(readOwner(`${path}/${lowest}`), 1_000, null) : null;
          const entry = [...curatorById].find(([, h]) => owner !== null && BigInt(h.contender.sessionId) === owner);
          if (!entry) return null;
          const [id, holder] = entry;
          return async (kind: Kind) => {
            if (kind === "release") {
              if (path === "/chaos/mutex") {
                await holder.contender.release(holder.mutex);
                holder.mutex = nextHandle("m");
                void holder.contender.mutex(holder.mutex, path);
              } else {
                await holder.contender.close(holder.latch);
                holder.latch = nextHandle("l");
                void holder.contender.latch(holder.latch, path, id);
              }
            } else if (kind === "crash") {
              curatorById.delete(id);
              await holder.contender.kill();
              void startCurator(id).then((next) => curatorById.set(id, next));
            } else {
              holder.contender.stall();
              setTimeout(() => holder.contender.wake(), between(0.5, 2) * ZK_SESSION_MS);
            }
          };
        },
      })),
      ...(["chaos/lock-a", "chaos/elect-a"] as const).map((election) => ({
        resource: `etcd:${election}`,
        async find() {
          const kvs = await within(
            etcdClient
              .getAll()
              .prefix(`${election}/`)
              .exec()
              .then((r) => r.kvs),
            1_000,
            [],
          );
          const lowest = [...kvs].sort((a, b) => Number(a.create_revision) - Number(b.create_revision))[0];
          // The holder is the contender that printed the lowest key (etcdctl prints it once it holds).
          const entry = lowest ? [...etcdContenders].find(([, c]) => c.output().includes(lowest.key.toString())) : undefined;
          if (!entry) return null;
          const [name, contender] = entry;
          return async (kind: Kind) => {
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
          };
        },
      })),
    ];

    // The schedule: every 1-3 s one held lock's holder is released, crashed or stalled.
    const startedAt = Date.now();
    let isLate = true;
    const counts = { release: 0, crash: 0, stall: 0 };
    while (Date.now() - startedAt < RUN_MS) {
      if (isLate && Date.now() - startedAt >= LATE_MS) {
        proxy.restore();
        isLate = false;
      }
      await wait(between(1_000, 3_000));
      const kind = pick(["release", "release", "crash", "stall"] as const);
      const order = targets.map((target) => ({ target, rank: random() })).sort((a, b) => a.rank - b.rank);
      for (const { target } of order) {
        const act = await target.find();
        if (act === null) continue;
        truth.actions.push({ resource: target.resource, at: Date.now(), kind });
        counts[kind] += 1;
        // An action waits for its contender's answer at most 10 s (a stalled JVM answers when woken).
        await within(act(kind), 10_000, undefined);
        break;
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
        `per lock ${[...new Set(truth.actions.map((a) => a.resource))].map((r) => `${r} ${truth.actions.filter((a) => a.resource === r).length}`).join(", ")}; ` +
        `truth sampled every ${SAMPLE_MS} ms (rounds ${describeGaps(truth.gaps)} apart on this machine); Baton polls every 1 s with change signals; the late ZooKeeper poller waited ${LATE_MS / 1000} s`,
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
