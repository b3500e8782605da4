// Benchmark: Baton's ZooKeeper kind on 5,000 lock paths in a real ZooKeeper 3.9.3.
// 1. The cost of a full read: a discovery walk under the root, then one read of every lock
//    (getChildren + getData of the holder and its waiter): requests, time, and the server JVM's
//    CPU time (from /proc).
// 2. Detection latency of a holder crash through the worker's poller and PostgreSQL: a holder
//    process is killed (SIGKILL); the clock starts when the server deletes its node (its session
//    expired; seen by a watch of this process) and stops at the change row's commit. Polls are
//    30 s apart, so what is measured is the watches'. Target: p95 under 1 s.
// 3. 1,000 leader nodes (the node itself is the lock): 500 Helix clusters' controller nodes named
//    one by one in the configuration, and 500 Patroni clusters found under one namespace (each
//    with its leader node and two members, whose JSON is read): discovery and a full read by each
//    of six sources in turn, each on a new session (cold: nothing read yet, as at a worker's
//    start or after a new session; the first also meets a server and a process that have not
//    run these reads before), and two more by the last (answered from what its first read
//    and watched, as long as nothing changed).
// 4. Leader changes among those 1,000, through the worker's poller (polls 30 s apart: the watches
//    carry them) and PostgreSQL: `trials` leaders, Helix and Patroni in turn, each held by a
//    session of its own. The leader's session is closed (its node goes at once: the clock starts
//    when this process's watch sees it go) until the change row's commit; then another session
//    creates the new leader's node (the clock starts at its watch's creation event) until the row
//    naming the new holder. Target: p95 at most 1 s.
// Run: npm run bench:zookeeper [-- --locks 5000 --trials 20 --leaders 1000 --only leaders]
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";

import { loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { createZookeeperSource } from "@/lib/sources/zookeeper/zookeeper-source";
import { parseZookeeperClusterConfig } from "@/lib/sources/zookeeper/zookeeper-config";
import { createTestDb, registerCluster, startPoller, waitFor } from "@/tests/support/poller-harness";
import { startTestDatabase } from "@/tests/support/test-database";
import { openTestSession, type TestSession } from "@/tests/support/zookeeper-nodes";
import { startZookeeperServer, type TestZookeeperServer } from "@/tests/support/zookeeper-server";

const { values } = parseArgs({
  options: {
    locks: { type: "string", default: "5000" },
    trials: { type: "string", default: "20" },
    leaders: { type: "string", default: "1000" },
    /** "locks" (1 and 2) or "leaders" (3 and 4); both when absent. */
    only: { type: "string" },
  },
});
const lockCount = Number(values.locks);
const trials = Number(values.trials);
const leaderCount = Number(values.leaders);
const ROOT = "/bench/locks";
/** The victims' session timeout: the server (tickTime 500 ms) allows 1..10 s. */
const VICTIM_SESSION_MS = 2_000;

const lockPath = (i: number) => `${ROOT}/job-${String(i).padStart(5, "0")}`;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** A holder in its own process: takes the lock Kazoo's way and holds it until killed. */
function startVictim(connectString: string, path: string, name: string): Promise<ChildProcess> {
  const script = `
    import zookeeper from "node-zookeeper-client";
    const client = zookeeper.createClient(${JSON.stringify(connectString)}, { sessionTimeout: ${VICTIM_SESSION_MS} });
    client.once("connected", () => client.create(${JSON.stringify(`${path}/${randomUUID().replaceAll("-", "")}__lock__`)}, Buffer.from(${JSON.stringify(name)}), zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL, (error) => console.log(error ? "failed " + error : "held")));
    client.connect();
    process.stdin.on("end", () => process.exit(0));
    process.stdin.resume();
  `;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { cwd: process.cwd(), stdio: ["pipe", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", (line) => (line === "held" ? resolve(child) : reject(new Error(`victim ${name}: ${line}`))));
    child.once("exit", (code) => reject(new Error(`victim ${name} exited (${code}) before holding`)));
  });
}

type BenchSource = ReturnType<typeof createZookeeperSource>;
type DescribeRead = (observations: Awaited<ReturnType<BenchSource["observe"]>>["observations"]) => string;

/** One discovery and one read of every lock found, printed under `label`; answers the read's time a lock, in ms. */
async function measurePass(server: TestZookeeperServer, source: BenchSource, label: string, describeRead: DescribeRead): Promise<number> {
  let cpuBefore = server.cpuMs();
  let started = performance.now();
  const found = await source.discover();
  const discoverMs = performance.now() - started;
  const discoverRequests = source.takeRequestCount();
  const discoverCpu = server.cpuMs() - cpuBefore;
  cpuBefore = server.cpuMs();
  const clientCpuBefore = process.cpuUsage();
  started = performance.now();
  const read = await source.observe(found.keys);
  const readMs = performance.now() - started;
  const clientCpu = process.cpuUsage(clientCpuBefore);
  const readRequests = source.takeRequestCount();
  const readCpu = server.cpuMs() - cpuBefore;
  console.log(
    `  ${label}: discovery ${found.keys.length} locks: ${discoverRequests} requests, ${discoverMs.toFixed(0)} ms, server CPU ${discoverCpu} ms; ` +
      `full read: ${readRequests} requests (a dump counts 1), ${readMs.toFixed(0)} ms (${(readMs / found.keys.length).toFixed(2)} ms a lock), ` +
      `server CPU ${readCpu} ms, this process's CPU ${((clientCpu.user + clientCpu.system) / 1000).toFixed(0)} ms; ` +
      `${describeRead(read.observations)}, ${read.errors.length} errors`,
  );
  return readMs / found.keys.length;
}

/**
 * A full read's figures: discovery and one read of every lock found, by `sources` sources in turn,
 * each on a session of its own (its first read is cold: nothing read yet, as at a worker's start);
 * the last reads three times over.
 */
async function measureReads(server: TestZookeeperServer, input: Record<string, unknown>, describeRead: DescribeRead, sources = 1): Promise<void> {
  const config = {
    ...parseZookeeperClusterConfig({ kind: "zookeeper", name: "bench", connectString: server.connectString, requestsPerSecond: 1_000_000, ...input }),
    digestSecret: undefined,
  };
  const firstReadsMs: number[] = [];
  for (let sourceNumber = 1; sourceNumber <= sources; sourceNumber++) {
    const source = createZookeeperSource(config);
    const passes = sourceNumber === sources ? 3 : 1;
    try {
      for (let pass = 1; pass <= passes; pass++) {
        const msALock = await measurePass(server, source, `${sources === 1 ? "" : `source ${sourceNumber} `}pass ${pass}`, describeRead);
        if (pass === 1) firstReadsMs.push(msALock);
      }
    } finally {
      await source.close();
    }
  }
  if (sources > 2) {
    const later = firstReadsMs.slice(1).sort((a, b) => a - b);
    console.log(
      `  first read of a new session: ${firstReadsMs[0]!.toFixed(2)} ms a lock for the first source; ` +
        `median ${percentile(later, 50).toFixed(2)} ms a lock (${later[0]!.toFixed(2)}-${later.at(-1)!.toFixed(2)}) for the ${later.length} after it`,
    );
  }
}

/** One leader whose node a trial moves: held by a session of its own, taken by another's. */
type LeaderTrial = { path: string; from: string; to: string; closeHolder(): Promise<void>; takeOver(): Promise<void> };

/** The 1,000 leader nodes: half Helix controllers, half Patroni clusters; the trials' leaders (Helix and Patroni in turn) on sessions of their own. */
async function createLeaderNodes(connectString: string): Promise<{ systems: unknown[]; trials: LeaderTrial[]; close(): Promise<void> }> {
  const fleet = await openTestSession(connectString, 10_000);
  const sessions: TestSession[] = [fleet];
  const helixCount = Math.floor(leaderCount / 2);
  const patroniCount = leaderCount - helixCount;
  const helixTrials = Math.ceil(trials / 2);
  const patroniTrials = trials - helixTrials;
  const name = (prefix: string, i: number) => `${prefix}-${String(i).padStart(5, "0")}`;
  const open = async () => {
    const session = await openTestSession(connectString, 10_000);
    sessions.push(session);
    return session;
  };
  const helixRecord = (id: string, session: TestSession, i: number) =>
    JSON.stringify({ id, simpleFields: { HELIX_VERSION: "1.4.3", LIVE_INSTANCE: `${1000 + i}@host`, SESSION_ID: session.sessionId } });
  const member = (role: string, xlog: number) =>
    JSON.stringify({ role, state: "running", timeline: 1, xlog_location: xlog, api_url: "http://127.0.0.1:8008/patroni" });
  const helixTrialsMade: LeaderTrial[] = [];
  const patroniTrialsMade: LeaderTrial[] = [];
  try {
    for (let i = 0; i < helixCount; i += 250) {
      await Promise.all(
        Array.from({ length: Math.min(250, helixCount - i) }, async (_, j) => {
          const index = i + j;
          const cluster = `/bench-helix/${name("cluster", index)}`;
          const path = `${cluster}/CONTROLLER/LEADER`;
          await fleet.mkdirp(`${cluster}/CONTROLLER`);
          if (index >= helixTrials) {
            await fleet.create(path, helixRecord(`controller-${index % 3}`, fleet, index), "ephemeral");
            return;
          }
          const [holder, standby] = [await open(), await open()];
          await holder.create(path, helixRecord("controller-0", holder, index), "ephemeral");
          helixTrialsMade[index] = {
            path,
            from: "controller-0",
            to: "controller-1",
            closeHolder: () => holder.close(),
            takeOver: async () => void (await standby.create(path, helixRecord("controller-1", standby, index), "ephemeral")),
          };
        }),
      );
    }
    for (let i = 0; i < patroniCount; i += 250) {
      await Promise.all(
        Array.from({ length: Math.min(250, patroniCount - i) }, async (_, j) => {
          const index = i + j;
          const scope = `/bench-service/${name("scope", index)}`;
          await fleet.mkdirp(`${scope}/members`);
          // Patroni's member and leader nodes share the member's session (a Kazoo client each).
          const [primary, replica] = index < patroniTrials ? [await open(), await open()] : [fleet, fleet];
          await primary.create(`${scope}/members/pg0`, member("master", 50_331_648), "ephemeral");
          await replica.create(`${scope}/members/pg1`, member("replica", 50_331_000), "ephemeral");
          await primary.create(`${scope}/leader`, "pg0", "ephemeral");
          if (index >= patroniTrials) return;
          patroniTrialsMade[index] = {
            path: `${scope}/leader`,
            from: "pg0",
            to: "pg1",
            closeHolder: () => primary.close(),
            takeOver: async () => void (await replica.create(`${scope}/leader`, "pg1", "ephemeral")),
          };
        }),
      );
    }
  } catch (error) {
    for (const session of sessions) await session.close();
    throw error;
  }
  return {
    systems: [
      ...Array.from({ length: helixCount }, (_, i) => ({ system: "helix", cluster: name("cluster", i), root: "/bench-helix" })),
      { system: "patroni", namespace: "/bench-service" },
    ],
    trials: Array.from({ length: trials }, (_, t) => (t % 2 === 0 ? helixTrialsMade[t / 2]! : patroniTrialsMade[(t - 1) / 2]!)),
    async close() {
      // A closed session's close is a no-op in the client.
      for (const session of sessions) await session.close();
    },
  };
}

/**
 * Arms a watch of this process on `path` (it fires at the node's deletion, or at its creation when
 * it is absent) and resolves once the server has it, with when it fires: the change must come after.
 */
function armNodeWatch(watcher: TestSession, path: string): Promise<{ firedAt: Promise<number> }> {
  let fire: (at: number) => void = () => undefined;
  const firedAt = new Promise<number>((resolve) => {
    fire = resolve;
  });
  return new Promise((resolve, reject) =>
    watcher.client.exists(
      path,
      () => fire(Date.now()),
      (error) => (error ? reject(error) : resolve({ firedAt })),
    ),
  );
}

function describeLatencies(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50)} ms, p95 ${percentile(sorted, 95)} ms, max ${sorted.at(-1)} ms`;
}

/** 3 and 4. Leader nodes: half Helix controllers configured by name, half Patroni clusters found under a namespace. */
async function benchLeaderNodes(server: TestZookeeperServer, databaseUrl: string, db: Db): Promise<void> {
  const leaders = await createLeaderNodes(server.connectString);
  const watcher = await openTestSession(server.connectString, 10_000);
  try {
    console.log(
      `ZooKeeper 3.9.3, ${leaderCount} leader nodes (the node is the lock): ${Math.floor(leaderCount / 2)} Helix controllers configured one by one, ${leaderCount - Math.floor(leaderCount / 2)} Patroni clusters (2 members each) found under one namespace:`,
    );
    await measureReads(
      server,
      { systems: leaders.systems },
      (observations) => {
        const held = observations.filter((o) => o.holder !== null).length;
        const withStandby = observations.filter((o) => o.details.system === "patroni" && o.waiters.length === 1).length;
        return `${held} held, ${withStandby} Patroni clusters with their standby`;
      },
      6,
    );

    const cluster = loadConfig({
      BATON_CLUSTERS: JSON.stringify([
        {
          kind: "zookeeper",
          name: `bench-leaders-${randomUUID().slice(0, 6)}`,
          connectString: server.connectString,
          systems: leaders.systems,
          pollIntervalMs: 30_000,
          discoveryIntervalMs: 600_000,
          requestsPerSecond: 100_000,
        },
      ]),
    }).clusters[0]!;
    const clusterId = await registerCluster(db, cluster);
    const poller = startPoller({ databaseUrl, cluster, clusterId, pollerId: "bench-zookeeper-leaders" });
    const gone: number[] = [];
    const taken: number[] = [];
    const endings = new Map<string, number>();
    try {
      await waitFor(
        () => db.heldResource.count({ where: { clusterId, holder: { not: null } } }),
        (n) => n === leaderCount,
        "every leader node to be seen held",
        600,
        200,
      );
      for (const trial of leaders.trials) {
        const row = (toHolder: string | null) =>
          waitFor(
            () =>
              db.holderChange.findFirst({
                where: { clusterId, resource: { resourceKey: trial.path }, toHolder },
                orderBy: { id: "desc" },
                select: { detectedAt: true, ending: true, fromHolder: true },
              }),
            (r) => r !== null,
            `the change row of ${trial.path} to ${toHolder ?? "nobody"}`,
            1_000,
            10,
          );
        const deleted = await armNodeWatch(watcher, trial.path);
        await trial.closeHolder();
        const deletedAt = await deleted.firedAt;
        const release = (await row(null))!;
        gone.push(release.detectedAt.getTime() - deletedAt);
        const ending = `${release.fromHolder === trial.from ? "" : `from ${release.fromHolder} `}${release.ending}`;
        endings.set(ending, (endings.get(ending) ?? 0) + 1);
        const created = await armNodeWatch(watcher, trial.path);
        await trial.takeOver();
        const createdAt = await created.firedAt;
        taken.push((await row(trial.to))!.detectedAt.getTime() - createdAt);
      }
    } finally {
      await poller.stop();
    }
    console.log(
      `  leader changes among ${leaderCount} leader nodes, ${trials} trials (Helix and Patroni in turn), polls 30 s apart, watches on (endings: ${[...endings].map(([e, n]) => `${n} ${e}`).join(", ")}):\n` +
        `    leader's session closed, node gone -> change row committed: ${describeLatencies(gone)}\n` +
        `    new leader's node created -> change row naming it committed: ${describeLatencies(taken)}\n` +
        `    both (${gone.length + taken.length} changes): ${describeLatencies([...gone, ...taken])} (target p95 <= 1000 ms)`,
    );
  } finally {
    await watcher.close();
    await leaders.close();
  }
}

/** 1 and 2. Kazoo-style locks: a full read, then a holder crash to its change row. */
async function benchLocks(server: TestZookeeperServer, databaseUrl: string, db: Db): Promise<void> {
  const fleet = await openTestSession(server.connectString, 10_000);
  const waiters = await openTestSession(server.connectString, 10_000);
  const watcher = await openTestSession(server.connectString, 10_000);
  const victims: ChildProcess[] = [];
  try {
    // The trial locks are held by victim processes (created first: they hold); the others by
    // one fleet session. Every lock has one waiter.
    const trialPaths = Array.from({ length: trials }, (_, t) => lockPath(t));
    for (let i = 0; i < lockCount; i += 500) await Promise.all(Array.from({ length: Math.min(500, lockCount - i) }, (_, j) => fleet.mkdirp(lockPath(i + j))));
    for (const [t, path] of trialPaths.entries()) victims.push(await startVictim(server.connectString, path, `victim-${t}`));
    for (let i = trials; i < lockCount; i += 500) {
      await Promise.all(
        Array.from({ length: Math.min(500, lockCount - i) }, (_, j) =>
          fleet.create(`${lockPath(i + j)}/${randomUUID().replaceAll("-", "")}__lock__`, `fleet-${i + j}`, "ephemeral-sequential"),
        ),
      );
    }
    for (let i = 0; i < lockCount; i += 500) {
      await Promise.all(
        Array.from({ length: Math.min(500, lockCount - i) }, (_, j) =>
          waiters.create(`${lockPath(i + j)}/${randomUUID().replaceAll("-", "")}__lock__`, `standby-${i + j}`, "ephemeral-sequential"),
        ),
      );
    }

    // 1. A full read, straight through the source (as the cycles call it).
    console.log(`ZooKeeper 3.9.3, ${lockCount} Kazoo-style lock paths, each with a holder and one waiter:`);
    await measureReads(
      server,
      { root: { path: ROOT, maxDepth: 1 } },
      (observations) => `${observations.filter((o) => o.holder !== null && o.waiters.length === 1).length} held with 1 waiter`,
    );

    // 2. Detection latency of a crash, through the poller.
    const cluster = loadConfig({
      BATON_CLUSTERS: JSON.stringify([
        {
          kind: "zookeeper",
          name: `bench-${randomUUID().slice(0, 6)}`,
          connectString: server.connectString,
          root: { path: ROOT, maxDepth: 1 },
          pollIntervalMs: 30_000,
          discoveryIntervalMs: 600_000,
          requestsPerSecond: 100_000,
        },
      ]),
    }).clusters[0]!;
    const clusterId = await registerCluster(db, cluster);
    const poller = startPoller({ databaseUrl, cluster, clusterId, pollerId: "bench-zookeeper" });
    const latencies: number[] = [];
    try {
      await waitFor(
        () => db.heldResource.count({ where: { clusterId, holder: { not: null } } }),
        (n) => n === lockCount,
        "every lock to be seen held",
        600,
        200,
      );
      for (const [t, path] of trialPaths.entries()) {
        const deleted = new Promise<number>((resolve) =>
          watcher.client.getChildren(
            path,
            () => resolve(Date.now()),
            () => undefined,
          ),
        );
        victims[t]!.kill("SIGKILL");
        const deletedAt = await deleted;
        const row = await waitFor(
          () => db.holderChange.findFirst({ where: { clusterId, resource: { resourceKey: path } }, select: { detectedAt: true, kind: true, ending: true } }),
          (r) => r !== null,
          `the change row of ${path}`,
          1_000,
          10,
        );
        if (row!.ending !== "EXPIRED") console.log(`  note: ${path} ended ${row!.kind} ${row!.ending}`);
        latencies.push(row!.detectedAt.getTime() - deletedAt);
      }
    } finally {
      await poller.stop();
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    console.log(
      `  holder crash (session ${VICTIM_SESSION_MS} ms expired by the server) -> change row committed, ${trials} trials, polls 30 s apart: ` +
        `p50 ${percentile(sorted, 50)} ms, p95 ${percentile(sorted, 95)} ms, max ${sorted.at(-1)} ms (target p95 < 1000 ms)`,
    );
  } finally {
    for (const victim of victims) victim.kill("SIGKILL");
    for (const session of [fleet, waiters, watcher]) await session.close();
  }
}

async function main(): Promise<void> {
  const server = await startZookeeperServer({ tickTimeMs: 500 });
  const database = await startTestDatabase();
  const db = createTestDb(database.url);
  try {
    console.log(`load average at start: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
    if (values.only !== "leaders") await benchLocks(server, database.url, db);
    if (values.only !== "locks") await benchLeaderNodes(server, database.url, db);
    console.log(`load average at end: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
  } finally {
    await db.$disconnect();
    await database.stop();
    await server.dispose();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
