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
//    with its leader node and two members, whose JSON is read): discovery and one full read.
// Run: npm run bench:zookeeper [-- --locks 5000 --trials 20 --leaders 1000 --only leaders]
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";

import { loadConfig } from "@/lib/config";
import { createZookeeperSource } from "@/lib/sources/zookeeper/zookeeper-source";
import { parseZookeeperClusterConfig } from "@/lib/sources/zookeeper/zookeeper-config";
import { createTestDb, registerCluster, startPoller, waitFor } from "@/tests/support/poller-harness";
import { startTestDatabase } from "@/tests/support/test-database";
import { openTestSession } from "@/tests/support/zookeeper-nodes";
import { startZookeeperServer } from "@/tests/support/zookeeper-server";

const { values } = parseArgs({
  options: {
    locks: { type: "string", default: "5000" },
    trials: { type: "string", default: "20" },
    leaders: { type: "string", default: "1000" },
    /** "locks" (1 and 2) or "leaders" (3); both when absent. */
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

/** A full read's figures: discovery and one read of every lock found, three times over. */
async function measureReads(
  server: Awaited<ReturnType<typeof startZookeeperServer>>,
  input: Record<string, unknown>,
  describeRead: (observations: Awaited<ReturnType<ReturnType<typeof createZookeeperSource>["observe"]>>["observations"]) => string,
): Promise<void> {
  const config = {
    ...parseZookeeperClusterConfig({ kind: "zookeeper", name: "bench", connectString: server.connectString, requestsPerSecond: 1_000_000, ...input }),
    digestSecret: undefined,
  };
  const source = createZookeeperSource(config);
  try {
    for (let pass = 1; pass <= 3; pass++) {
      let cpuBefore = server.cpuMs();
      let started = performance.now();
      const found = await source.discover();
      const discoverMs = performance.now() - started;
      const discoverRequests = source.takeRequestCount();
      const discoverCpu = server.cpuMs() - cpuBefore;
      cpuBefore = server.cpuMs();
      started = performance.now();
      const read = await source.observe(found.keys);
      const readMs = performance.now() - started;
      const readRequests = source.takeRequestCount();
      const readCpu = server.cpuMs() - cpuBefore;
      console.log(
        `  pass ${pass}: discovery ${found.keys.length} locks: ${discoverRequests} requests, ${discoverMs.toFixed(0)} ms, server CPU ${discoverCpu} ms; ` +
          `full read: ${readRequests} requests (a dump counts 1), ${readMs.toFixed(0)} ms (${(readMs / found.keys.length).toFixed(2)} ms a lock), server CPU ${readCpu} ms; ` +
          `${describeRead(read.observations)}, ${read.errors.length} errors`,
      );
    }
  } finally {
    await source.close();
  }
}

/** 3. Leader nodes: half Helix controllers configured by name, half Patroni clusters found under a namespace. */
async function benchLeaderNodes(server: Awaited<ReturnType<typeof startZookeeperServer>>): Promise<void> {
  const session = await openTestSession(server.connectString, 10_000);
  const helixCount = Math.floor(leaderCount / 2);
  const patroniCount = leaderCount - helixCount;
  const name = (prefix: string, i: number) => `${prefix}-${String(i).padStart(5, "0")}`;
  try {
    for (let i = 0; i < helixCount; i += 250) {
      await Promise.all(
        Array.from({ length: Math.min(250, helixCount - i) }, async (_, j) => {
          const cluster = `/bench-helix/${name("cluster", i + j)}`;
          await session.mkdirp(`${cluster}/CONTROLLER`);
          const record = {
            id: `controller-${(i + j) % 3}`,
            simpleFields: { HELIX_VERSION: "1.4.3", LIVE_INSTANCE: `${1000 + i + j}@host`, SESSION_ID: session.sessionId },
          };
          await session.create(`${cluster}/CONTROLLER/LEADER`, JSON.stringify(record), "ephemeral");
        }),
      );
    }
    for (let i = 0; i < patroniCount; i += 250) {
      await Promise.all(
        Array.from({ length: Math.min(250, patroniCount - i) }, async (_, j) => {
          const scope = `/bench-service/${name("scope", i + j)}`;
          await session.mkdirp(`${scope}/members`);
          const member = (role: string, xlog: number) =>
            JSON.stringify({ role, state: "running", timeline: 1, xlog_location: xlog, api_url: "http://127.0.0.1:8008/patroni" });
          await session.create(`${scope}/members/pg0`, member("master", 50_331_648), "ephemeral");
          await session.create(`${scope}/members/pg1`, member("replica", 50_331_000), "ephemeral");
          await session.create(`${scope}/leader`, "pg0", "ephemeral");
        }),
      );
    }
    console.log(
      `ZooKeeper 3.9.3, ${leaderCount} leader nodes (the node is the lock): ${helixCount} Helix controllers configured one by one, ${patroniCount} Patroni clusters (2 members each) found under one namespace:`,
    );
    await measureReads(
      server,
      {
        systems: [
          ...Array.from({ length: helixCount }, (_, i) => ({ system: "helix", cluster: name("cluster", i), root: "/bench-helix" })),
          { system: "patroni", namespace: "/bench-service" },
        ],
      },
      (observations) => {
        const held = observations.filter((o) => o.holder !== null).length;
        const withStandby = observations.filter((o) => o.details.system === "patroni" && o.waiters.length === 1).length;
        return `${held} held, ${withStandby} Patroni clusters with their standby`;
      },
    );
  } finally {
    await session.close();
  }
}

async function main(): Promise<void> {
  const server = await startZookeeperServer({ tickTimeMs: 500 });
  if (values.only === "leaders") {
    try {
      await benchLeaderNodes(server);
    } finally {
      await server.dispose();
    }
    return;
  }
  const database = await startTestDatabase();
  const db = createTestDb(database.url);
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
    const poller = startPoller({ databaseUrl: database.url, cluster, clusterId, pollerId: "bench-zookeeper" });
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
    if (values.only !== "locks") await benchLeaderNodes(server);
  } finally {
    for (const victim of victims) victim.kill("SIGKILL");
    for (const session of [fleet, waiters, watcher]) await session.close();
    await db.$disconnect();
    await database.stop();
    await server.dispose();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
