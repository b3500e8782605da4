// `npm run demo`: Baton against a living fleet, everything real. Starts an embedded PostgreSQL,
// a Pulsar broker and three Redis masters of the demo's own (under .baton/demo), Baton's worker
// and web app, a fleet of services whose workers process keyed messages through the
// mutual-exclusivity counter (one of them Java pods with the Java client's Pulsar interceptor,
// whose active pod is frozen with SIGSTOP), and a scheduler whose leader is elected with Redlock over the
// three masters, a ZooKeeper server and an etcd server of its own with an election on each (a
// Curator LeaderLatch, `etcdctl elect`), a Patroni pair on that etcd, and a nightly job whose two
// nodes take turns through a ShedLock table; then crashes leaders (the elections' and the Patroni
// primary's host too), rolls deployments, stalls a worker,
// stalls the scheduler's leader past its lock's TTL, overruns the nightly job past its
// lockAtMostFor and scales a Key_Shared group on a schedule. Ctrl-C
// stops every process it started, the fleet first, then Baton, and ends with one line.
//   npm run demo                 the normal schedule
//   npm run demo -- --fast       a crash, a rollout, a stall and a lock stall after it within about four minutes (the e2e test uses it)
//   npm run demo -- --port 3001  another web port
//   npm run demo -- --data-dir D where its database and broker live (default .baton/demo, wiped at start)
//   npm run demo -- --postgres-port P  its embedded PostgreSQL's port (default 54339)
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";

import Redis from "ioredis";

import { createApiToken } from "@/lib/auth/create-api-token";
import { ConfigError, getListenSettings, loadConfig } from "@/lib/config";
import { createDb } from "@/lib/db/client";
import { createInProcessCounter, createRedisCounter, type CounterBackend } from "@/lib/exclusivity-client";
import { planListen } from "@/lib/http/listen-address";
import { ensureNextBuild } from "@/lib/launcher/ensure-next-build";
import { prepareDatabase, StartupError } from "@/lib/launcher/prepare-database";
import { sleep as sleepUnlessAborted } from "@/lib/sleep";
import {
  BILLING_SWEEPER,
  DEMO_DEPLOYMENT_GRACE_MINUTES,
  DEMO_ETCD_PREFIX,
  DEMO_ZOOKEEPER_SESSION_TIMEOUT_MS,
  INDEX_BUILDER,
  DEMO_LOCK_CLUSTER,
  LEDGER_CLOSE,
  ORDERS_DB,
  DEMO_PATRONI_NAMESPACE,
  DEMO_NAMESPACE,
  DEMO_REDLOCK_MASTERS,
  DEMO_BROKER_KEEPALIVE_SECONDS,
  DEMO_SERVICES,
  DEMO_TENANT,
  FAST_SCHEDULE,
  JVM_SERVICE,
  NORMAL_SCHEDULE,
  REPORT_SCHEDULER,
} from "@/tools/demo/demo-plan";
import { startDemoRedisMasters } from "@/tools/demo/demo-redis-masters";
import { crashLeader, every, scaleKeyShared } from "@/tools/demo/demo-scenarios";
import { startDeployThenStall } from "@/tools/demo/deploy-then-stall";
import { startJvmService, type RunningJvmService } from "@/tools/demo/jvm-service";
import { type RunningService, startService } from "@/tools/demo/demo-service";
import { startEtcdElection, startZookeeperElection, type RunningElection } from "@/tools/demo/lock-elections";
import { stallLockHolder } from "@/tools/demo/lock-stall";
import { overrunNightlyJob, prepareNightlyJobDatabase, startNightlyJob } from "@/tools/demo/nightly-job";
import { startPatroniCluster } from "@/tools/demo/patroni-cluster";
import { startRedlockScheduler } from "@/tools/demo/redlock-scheduler";
import { createNamespace, createNonPartitionedTopic, createPartitionedTopic, createTenant } from "@/tools/pulsar/admin-setup";
import { isPortFree } from "@/tools/free-port";
import { buildServeWebArgs } from "@/tools/serve-web-args";
import { isInOwnProcessGroup } from "@/tools/demo/own-process-group";
import { stopChildren } from "@/tools/stop-children";
import { type BrokerHandle, startBroker } from "@/tools/pulsar/broker";
import { startEtcdServer } from "@/tests/support/etcd-servers";
import { startZookeeperServer } from "@/tests/support/zookeeper-server";

const root = process.cwd();
/** How long Baton's worker and web server get to finish once asked to stop, before they are killed. */
const STOP_GRACE_MS = 10_000;
/** The stop's own lines: printed also while stopping. */
const say = (line: string) => console.log(`[demo] ${line}`);
/** The fleet's and the scenarios' narration: muted once Ctrl-C came, so the stop's lines are the last ones. */
let isNarrating = true;
const log = (line: string) => {
  if (isNarrating) say(line);
};

const { values: args } = parseArgs({
  options: {
    fast: { type: "boolean", default: false },
    port: { type: "string", default: "3000" },
    "data-dir": { type: "string", default: path.join(root, ".baton", "demo") },
    "postgres-port": { type: "string", default: "54339" },
  },
});
const DEMO_POSTGRES_PORT = Number(args["postgres-port"]);
const schedule = args.fast ? FAST_SCHEDULE : NORMAL_SCHEDULE;
const pollIntervalMs = args.fast ? 1_000 : 2_000;

/** Real Redis when one answers on 127.0.0.1:6379, else a counter in this process (still atomic). */
async function createCounter(): Promise<{ counter: CounterBackend; isRedis: boolean; close(): Promise<void> }> {
  const redis = new Redis({ host: "127.0.0.1", port: 6379, lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 1, retryStrategy: () => null });
  redis.on("error", () => undefined); // the failed connect below says it
  try {
    await redis.connect();
    await redis.ping();
    log("counters in Redis at 127.0.0.1:6379");
    return { counter: createRedisCounter(redis, { ttlMs: 120_000 }), isRedis: true, close: async () => void (await redis.quit().catch(() => undefined)) };
  } catch {
    redis.disconnect();
    log("no Redis at 127.0.0.1:6379: counters in this process (atomic all the same)");
    return { counter: createInProcessCounter(), isRedis: false, close: async () => undefined };
  }
}

async function waitForWeb(url: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const response = await fetch(`${url}/api/health`).catch(() => null);
    if (response) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new StartupError(`the web app did not answer at ${url}`);
}

/** A lock service the demo needs: what is missing (etcd, Java or Maven) is said in one line. */
async function startLockService<T>(name: string, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    throw new StartupError(`its ${name} server did not start: ${(error as Error).message.split("\n")[0]}`);
  }
}

async function main(): Promise<void> {
  const stops: (() => Promise<void>)[] = [];
  let isStopping = false;
  // The stops run in reverse order of the starts: the schedules and the fleet first (their last
  // events still reach Baton), then Baton's web app and worker, then the servers and the database.
  const stopAll = async (code: number) => {
    if (isStopping) return;
    isStopping = true;
    isNarrating = false;
    const startedMs = Date.now();
    say("stopping: the fleet first, then Baton, then the servers...");
    for (const stop of stops.reverse()) await stop().catch((error: unknown) => say(`while stopping: ${(error as Error).message}`));
    say(`stopped everything the demo started in ${((Date.now() - startedMs) / 1000).toFixed(1)} s`);
    process.exit(code);
  };
  // A closed terminal or test pipe must not stop the stopping: a log line written to it fails
  // with EPIPE, and there is nobody left to tell.
  for (const stream of [process.stdout, process.stderr])
    stream.on("error", (error: NodeJS.ErrnoException) => void (error.code === "EPIPE" ? undefined : stopAll(1)));
  if (!isInOwnProcessGroup(() => void stopAll(0))) return;
  // Persistent listeners: with once() Node drops ours before calling it, and the broker's process
  // guard, seeing itself alone, would exit before the ordered stop finishes.
  process.on("SIGINT", () => void stopAll(0));
  process.on("SIGTERM", () => void stopAll(0));

  try {
    if (!(await isPortFree(Number(args.port)))) throw new StartupError(`port ${args.port} is in use (another Baton?): stop it or pass --port`);
    if (!(await isPortFree(DEMO_POSTGRES_PORT))) throw new StartupError(`port ${DEMO_POSTGRES_PORT} is in use: is another demo running?`);
    const dataDir = path.resolve(args["data-dir"]);
    // Every demo starts from nothing: a deployment left open by an interrupted run must not
    // colour this run's violations.
    rmSync(dataDir, { recursive: true, force: true });
    // The demo has a database of its own: its rows never mix with what `npm start` keeps.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: "",
      BATON_DATA_DIR: dataDir,
      BATON_EMBEDDED_PG_PORT: String(DEMO_POSTGRES_PORT),
      PORT: args.port,
      BATON_DEPLOYMENT_GRACE_MINUTES: String(DEMO_DEPLOYMENT_GRACE_MINUTES),
      NEXT_TELEMETRY_DISABLED: "1",
    };
    const config = loadConfig(env);
    const listen = getListenSettings(config, config.port);
    const plan = planListen(listen);
    if (plan.warning) log(plan.warning);
    const database = await prepareDatabase(config, log);
    if (database.embedded) stops.push(() => database.embedded!.stop());

    log("starting the demo's Pulsar broker (the first run downloads its jars through Maven)...");
    // A short keep-alive: the JVM service's frozen pod loses its partition within seconds.
    const broker: BrokerHandle = await startBroker({
      dataDir: path.join(dataDir, "pulsar"),
      keepData: false,
      log,
      brokerConfig: { keepAliveIntervalSeconds: DEMO_BROKER_KEEPALIVE_SECONDS },
    });
    stops.push(() => broker.stop({ keepData: true }));
    await createTenant(broker.adminUrl, DEMO_TENANT);
    await createNamespace(broker.adminUrl, DEMO_NAMESPACE);
    for (const plan of DEMO_SERVICES) {
      const topic = `persistent://${DEMO_NAMESPACE}/${plan.topic}`;
      if (plan.partitions > 1) await createPartitionedTopic(broker.adminUrl, topic, plan.partitions);
      else await createNonPartitionedTopic(broker.adminUrl, topic);
    }
    await createNonPartitionedTopic(broker.adminUrl, `persistent://${DEMO_NAMESPACE}/${JVM_SERVICE.topic}`);

    log(`starting ${DEMO_REDLOCK_MASTERS} Redis masters for the report-scheduler's Redlock group...`);
    const redisMasters = await startDemoRedisMasters(path.join(dataDir, "redis"), DEMO_REDLOCK_MASTERS);
    stops.push(() => redisMasters.stop());

    // The lock services of the elections: the first run builds ZooKeeper through Maven, and
    // installs Debian's etcd when missing (as root; otherwise it says what to install).
    log("starting the demo's ZooKeeper and etcd servers for the index-builder's and billing-sweeper's elections...");
    const zookeeper = await startLockService("ZooKeeper", () => startZookeeperServer());
    stops.push(() => zookeeper.dispose());
    const etcd = await startLockService("etcd", () => startEtcdServer({ log }));
    stops.push(() => etcd.dispose());

    // ledger-close's own database, beside Baton's on the demo's PostgreSQL: its ShedLock table.
    const ledgerUrl = await prepareNightlyJobDatabase(database.url, LEDGER_CLOSE);

    const db = createDb(database.url);
    const token = (await createApiToken(db, `demo-${Date.now()}`)).token;
    await db.$disconnect();

    env.BATON_CLUSTERS = JSON.stringify([
      { name: "demo", adminUrl: broker.adminUrl, scope: { tenants: [DEMO_TENANT] }, pollIntervalMs, discoveryIntervalMs: 10_000 },
      {
        kind: "redis",
        name: DEMO_LOCK_CLUSTER,
        urls: redisMasters.urls,
        // The scheduler's value is "<worker>:<uuid>": the board names the worker.
        patterns: [{ match: REPORT_SCHEDULER.lockKey, layout: "token", holderPattern: "^(?<holder>[^:]+):", mustBeHeld: true }],
        pollIntervalMs,
      },
      {
        kind: "zookeeper",
        name: INDEX_BUILDER.cluster,
        connectString: zookeeper.connectString,
        paths: [{ path: INDEX_BUILDER.lockPath, recipe: "curator-leader-latch", mustBeHeld: true }],
        pollIntervalMs,
      },
      {
        kind: "etcd",
        name: BILLING_SWEEPER.cluster,
        endpoints: [etcd.url],
        prefixes: [
          { prefix: DEMO_ETCD_PREFIX, layout: "go-election", mustBeHeld: true },
          { prefix: DEMO_PATRONI_NAMESPACE, layout: "patroni", mustBeHeld: true },
        ],
        pollIntervalMs,
      },
      {
        kind: "database",
        name: LEDGER_CLOSE.cluster,
        url: ledgerUrl,
        databases: [LEDGER_CLOSE.database],
        tables: [{ format: "shedlock", table: `public.${LEDGER_CLOSE.table}` }],
        pollIntervalMs,
      },
    ]);
    ensureNextBuild(root, log, env.BATON_NEXT_DIST_DIR || ".next");
    const worker = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", path.join(root, "lib", "worker", "main.ts")], {
      cwd: root,
      env,
      stdio: ["ignore", "ignore", "inherit"],
    });
    // Not `next start`: its stop waits until the browser tabs' connections go idle (tools/serve-web.ts).
    const web = spawn(process.execPath, ["--import", "tsx", path.join(root, "tools", "serve-web.ts"), ...buildServeWebArgs(listen)], {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "inherit"],
    });
    // Of what the web server prints, only its own start-up line (where it listens) is the demo's to say.
    createInterface({ input: web.stdout! }).on("line", (line) => {
      if (line.startsWith("[baton] web server listening on ")) log(line.slice("[baton] ".length));
    });
    const children: ChildProcess[] = [worker, web];
    stops.push(() =>
      stopChildren(
        [
          { name: "Baton's worker", process: worker },
          { name: "Baton's web server", process: web },
        ],
        { graceMs: STOP_GRACE_MS, log: say },
      ),
    );
    for (const child of children) {
      child.once("exit", (code) => {
        if (isStopping) return;
        log(`a Baton process exited (${code})`);
        void stopAll(1);
      });
    }

    const url = plan.localUrl;
    await waitForWeb(url);
    const { counter, isRedis, close: closeCounter } = await createCounter();
    stops.push(closeCounter);
    const services = new Map<string, RunningService>();
    stops.push(async () => {
      for (const service of services.values()) await service.close();
    });
    const connection = { wsUrl: broker.wsUrl };
    const counterKeyPrefix = `baton:exclusivity:demo-${randomUUID().slice(0, 8)}:`;
    for (const plan of DEMO_SERVICES)
      services.set(plan.service, await startService(plan, { connection, counter, counterKeyPrefix, baton: { url, token }, namespace: DEMO_NAMESPACE, log }));
    // The JVM pods count in Redis itself (the Java client has no in-process counter).
    if (isRedis) log(`starting ${JVM_SERVICE.service}, the JVM service (the first run builds the Java client with Maven)...`);
    else log(`${JVM_SERVICE.service} (the JVM service) does not run: it needs Redis at 127.0.0.1:6379`);
    const jvmService: RunningJvmService | null = isRedis
      ? await startJvmService(JVM_SERVICE, {
          adminUrl: broker.adminUrl,
          serviceUrl: broker.serviceUrl,
          connection,
          baton: { url, token },
          counterKeyPrefix,
          namespace: DEMO_NAMESPACE,
          log,
        })
      : null;
    if (jvmService) stops.push(() => jvmService.close());
    const reportScheduler = await startRedlockScheduler(REPORT_SCHEDULER, {
      masterUrls: redisMasters.urls,
      lockRef: `${DEMO_LOCK_CLUSTER}/${REPORT_SCHEDULER.lockKey}`,
      counter,
      counterKeyPrefix,
      baton: { url, token },
      log,
    });
    stops.push(() => reportScheduler.close());
    const elections: RunningElection[] = [];
    stops.push(async () => {
      for (const election of elections) await election.close();
    });
    elections.push(await startZookeeperElection(INDEX_BUILDER, zookeeper.connectString, DEMO_ZOOKEEPER_SESSION_TIMEOUT_MS, log));
    elections.push(await startEtcdElection(BILLING_SWEEPER, etcd.url, log));
    // Patroni and PostgreSQL 15 from Debian (installed through apt on the first run, as root):
    // without them the demo runs on, and says so in one line.
    log(`starting ${ORDERS_DB.service}, a Patroni pair on the demo's etcd (the first run installs Debian's Patroni)...`);
    try {
      elections.push(await startPatroniCluster(ORDERS_DB, `127.0.0.1:${etcd.clientPort}`, log));
    } catch (error) {
      log(`${ORDERS_DB.service} (Patroni) does not run: ${(error as Error).message.split("\n")[0]}`);
    }
    log(`starting ${LEDGER_CLOSE.service}'s nodes (ShedLock on the JVM: the first run builds them with Maven)...`);
    const ledgerClose = await startLockService("ShedLock node", () => startNightlyJob(LEDGER_CLOSE, { databaseUrl: ledgerUrl, pollIntervalMs, log }));
    stops.push(() => ledgerClose.close());
    const overrunAbort = new AbortController();
    stops.push(async () => overrunAbort.abort());
    const electionsAbort = new AbortController();
    stops.push(async () => electionsAbort.abort());

    const deps = { adminUrl: broker.adminUrl, baton: { url, token }, services, schedule, log, deploymentGraceMs: DEMO_DEPLOYMENT_GRACE_MINUTES * 60_000 };
    const jvmAbort = new AbortController();
    stops.push(async () => jvmAbort.abort());
    const stopSchedules = [
      every(
        schedule.firstAfterMs,
        schedule.crashEveryMs,
        async () => {
          await crashLeader(deps, "daily-job");
          await crashLeader(deps, "audit-writer");
        },
        log,
      ),
      // The stalls must land outside the rollout's window: one script, not several timers.
      startDeployThenStall(deps, "user-orchestrator", async (signal) => {
        await sleepUnlessAborted(schedule.lockStallAfterCycleMs, signal);
        if (!signal.aborted) await stallLockHolder(reportScheduler, schedule, log, signal);
      }),
      every(schedule.firstAfterMs, schedule.scaleEveryMs, () => scaleKeyShared(deps, "click-tracker"), log),
      // Both elections' leaders crash at once: each moves when the dead leader's session or lease runs out.
      every(
        schedule.electionCrashFirstMs,
        schedule.electionCrashEveryMs,
        async () => {
          await Promise.all(
            elections.map(async (election) => {
              const next = await election.crashLeader(schedule.electionDownMs, electionsAbort.signal);
              if (next !== null) log(`${election.plan.service}: leadership moved to ${next}`);
            }),
          );
        },
        log,
      ),
    ];
    stopSchedules.push(
      every(schedule.overrunFirstMs, schedule.overrunEveryMs, () => overrunNightlyJob(ledgerClose, schedule.overrunAttempts, log, overrunAbort.signal), log),
    );
    if (jvmService) {
      stopSchedules.push(
        every(
          schedule.jvmFreezeFirstMs,
          schedule.jvmFreezeEveryMs,
          async () => void (await jvmService.freezeLeader(schedule.jvmFrozenMs, schedule.jvmFreezeAttempts, jvmAbort.signal)),
          log,
        ),
      );
    }
    stops.push(async () => {
      for (const stop of stopSchedules) stop();
    });

    log(
      `Baton is at ${url} (demo cluster "demo" on ${broker.adminUrl}, "${DEMO_LOCK_CLUSTER}" on ${redisMasters.urls.join(", ")}, "${INDEX_BUILDER.cluster}" on ${zookeeper.connectString}, "${BILLING_SWEEPER.cluster}" on ${etcd.url}, "${LEDGER_CLOSE.cluster}" on the database ${LEDGER_CLOSE.database}); Ctrl-C stops everything`,
    );
    log(
      `services: ${[...DEMO_SERVICES, ...(jvmService ? [JVM_SERVICE] : [])].map((s) => `${s.service} (${s.subscriptionType}, ${s.workers.join(", ")})`).join("; ")}; ${REPORT_SCHEDULER.service} (Redlock on ${REPORT_SCHEDULER.lockKey}, ${REPORT_SCHEDULER.workers.join(", ")}); ${[INDEX_BUILDER, BILLING_SWEEPER].map((e) => `${e.service} (${e.kind === "zookeeper" ? "Curator LeaderLatch" : "etcd election"} on ${e.lockPath}, ${e.workers.join(", ")})`).join("; ")}; ${LEDGER_CLOSE.service} (ShedLock on ${LEDGER_CLOSE.lockName}, ${LEDGER_CLOSE.nodes.join(", ")}); ${ORDERS_DB.service} (Patroni on ${ORDERS_DB.lockPath}, ${ORDERS_DB.workers.join(", ")})`,
    );
  } catch (error) {
    console.error(`The demo cannot start: ${error instanceof ConfigError || error instanceof StartupError ? error.message : (error as Error).stack}`);
    await stopAll(1);
  }
}

void main();
