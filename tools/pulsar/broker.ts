import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, utimesSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { DEFAULT_PULSAR_VERSION, ensureBrokerBuilt, type PulsarVersion } from "./build-launcher";
import { findFreePorts, isPortFree } from "../free-port";
import { assertJavaAvailable } from "./prerequisites";
import { guardProcessGroup, signalProcessGroup } from "./process-guard";
import { readLogTail } from "./read-log-tail";
import { sweepStaleTempDirs } from "./sweep-temp-dirs";

export {
  DEFAULT_PULSAR_VERSION,
  ensureBrokerBuilt,
  isPulsarVersion,
  PULSAR_VERSIONS,
  type LauncherBuild,
  type PulsarVersion,
} from "./build-launcher";
export { MissingPrerequisiteError } from "./prerequisites";

export interface StartBrokerOptions {
  version?: PulsarVersion;
  /** Default: a new temporary directory, removed by stop() unless told to keep it. */
  dataDir?: string;
  /** Keep what a previous run left in dataDir (default false: wipe it first). */
  keepData?: boolean;
  /** Admin REST API and WebSocket port. Default: a free port. */
  webPort?: number;
  /** Binary protocol port. Default: a free port. */
  brokerPort?: number;
  /** Default 0: a free port (a kept data dir reuses the port recorded in its bookie cookie). */
  bookiePort?: number;
  /**
   * A ZooKeeper for the broker's and the bookie's metadata, `zk:127.0.0.1:<port>` (Pulsar's
   * `--metadata-url`): the broker's own nodes (its load-manager leader at /loadbalance/leader, its
   * registration under /loadbalance/brokers) are then there to read. Default: a rocksdb store in
   * dataDir. The standalone's other ZooKeeper mode (PULSAR_STANDALONE_USE_ZOOKEEPER) runs the
   * ZooKeeper inside the broker's JVM, where the broker's crash takes the server with it.
   */
  metadataStoreUrl?: string;
  /** From spawn to the admin API answering; default 180 s (a 2-core CI box under load). */
  startTimeoutMs?: number;
  maxHeapMb?: number;
  maxDirectMemoryMb?: number;
  /** Broker configuration on top of baton-standalone.conf, e.g. { statsUpdateFrequencyInSecs: 1 }
   * for tests that need msgRateOut sooner than the default 60 s. */
  brokerConfig?: Record<string, string | number | boolean>;
  /** Appended to the JVM flags (before the classpath). */
  extraJvmArgs?: string[];
  /** Progress lines (Maven resolve, start); default: silent. */
  log?: (line: string) => void;
}

export interface StopBrokerOptions {
  /** Default: keep a caller's dataDir, remove a temporary one. */
  keepData?: boolean;
}

export interface BrokerHandle {
  /** http://127.0.0.1:<webPort>, without /admin/v2. */
  readonly adminUrl: string;
  /** pulsar://127.0.0.1:<brokerPort> */
  readonly serviceUrl: string;
  /** ws://127.0.0.1:<webPort>, without /ws/v2. */
  readonly wsUrl: string;
  readonly version: PulsarVersion;
  readonly webPort: number;
  readonly brokerPort: number;
  readonly dataDir: string;
  /** The broker's stdout and stderr, appended to on every start. */
  readonly logFile: string;
  /** The JVM of the current run (a restart changes it). */
  readonly pid: number;
  /** Spawn to admin 200 of the last start, in ms. */
  readonly startupMs: number;
  isRunning(): boolean;
  /** SIGTERM to the JVM's process group; SIGKILL after 15 s. Idempotent. */
  stop(options?: StopBrokerOptions): Promise<void>;
  /** Start again on the same ports and data dir, keeping data (after stop({ keepData: true })). */
  start(): Promise<void>;
  /** stop({ keepData: true }) then start(). */
  restart(): Promise<void>;
}

// A SIGTERM'd standalone closes in about a second; 15 s means something hangs.
const STOP_GRACE_MS = 15_000;
const DEFAULT_START_TIMEOUT_MS = 180_000;
const READY_POLL_INTERVAL_MS = 200;
const READY_REQUEST_TIMEOUT_MS = 2_000;
// Measured: 512 MB of heap and 256 MB of direct memory carry the test suite and 200 msg/s with
// room to spare; RSS is 345 MB after start, 389 MB at that rate.
const DEFAULT_MAX_HEAP_MB = 512;
const DEFAULT_MAX_DIRECT_MEMORY_MB = 256;
// Marks a directory as ours, so that wiping it can never delete something else.
const DATA_DIR_MARKER = ".baton-pulsar-data";
const TEMP_DIR_PREFIX = "baton-pulsar-";
const LAUNCHER_MAIN_CLASS = "baton.pulsar.StandaloneLauncher";

// From Pulsar's bin/pulsar, plus jdk.internal.platform: without it 4.x logs a stack trace reading
// container metrics and 3.0 cannot read them at all.
const JVM_OPENS = [
  "java.base/java.io",
  "java.base/java.util.zip",
  "java.base/java.nio",
  "java.base/jdk.internal.misc",
  "java.base/sun.net",
  "java.base/jdk.internal.platform",
  "java.management/sun.management",
];

export class BrokerStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BrokerStartError";
  }
}

interface RunningProcess {
  child: ChildProcess;
  pid: number;
  exited: Promise<void>;
  hasExited: () => boolean;
  release: () => void;
}

/**
 * Starts a real Pulsar standalone in one JVM and resolves once `GET
 * /admin/v2/namespaces/public/default` answers 200 (the standalone creates that namespace after
 * the broker is up, so this is the first moment tests can use it).
 */
export async function startBroker(options: StartBrokerOptions = {}): Promise<BrokerHandle> {
  const version = options.version ?? DEFAULT_PULSAR_VERSION;
  const java = assertJavaAvailable();
  const build = await ensureBrokerBuilt(version, { log: options.log });

  const ownsDataDir = options.dataDir === undefined;
  if (ownsDataDir) sweepStaleTempDirs(tmpdir(), TEMP_DIR_PREFIX, DATA_DIR_MARKER);
  const dataDir = path.resolve(options.dataDir ?? mkdtempSync(path.join(tmpdir(), TEMP_DIR_PREFIX)));
  prepareDataDir(dataDir, options.keepData ?? false);

  const [freeWeb, freeBroker] = await findFreePorts(2);
  const webPort = options.webPort ?? freeWeb!;
  const brokerPort = options.brokerPort ?? freeBroker!;
  const bookiePort = options.bookiePort ?? 0;
  const logFile = path.join(dataDir, "broker.log");
  const adminUrl = `http://127.0.0.1:${webPort}`;
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;

  const javaArgs = [
    `-Xmx${options.maxHeapMb ?? DEFAULT_MAX_HEAP_MB}m`,
    `-XX:MaxDirectMemorySize=${options.maxDirectMemoryMb ?? DEFAULT_MAX_DIRECT_MEMORY_MB}m`,
    "-XX:+ExitOnOutOfMemoryError",
    // Measured on the 2-core box: C1 only and the serial collector cut start-up from 12-15 s to
    // 9-10 s (C2 and G1's threads compete for the two cores while 300 jars load); a test broker
    // needs no peak throughput.
    "-XX:TieredStopAtLevel=1",
    "-XX:+UseSerialGC",
    "-Djava.net.preferIPv4Stack=true",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dio.netty.leakDetection.level=disabled",
    ...JVM_OPENS.flatMap((opens) => ["--add-opens", `${opens}=ALL-UNNAMED`]),
    ...(options.extraJvmArgs ?? []),
    `@${build.classpathArgFile}`,
    LAUNCHER_MAIN_CLASS,
    "--data-dir",
    dataDir,
    "--web-port",
    String(webPort),
    "--broker-port",
    String(brokerPort),
    "--bookie-port",
    String(bookiePort),
    ...(options.metadataStoreUrl === undefined ? [] : ["--metadata-url", options.metadataStoreUrl]),
    ...Object.entries(options.brokerConfig ?? {}).flatMap(([key, value]) => ["--conf", `${key}=${String(value)}`]),
    "--watch-stdin",
  ];

  let current: RunningProcess | undefined;
  let startupMs = 0;
  let isDataRemoved = false;

  async function launch(): Promise<void> {
    if (isDataRemoved) throw new BrokerStartError(`cannot start again: ${dataDir} was removed by stop()`);
    for (const port of [webPort, brokerPort]) {
      // Another broker on the port would answer our readiness probe and fool us.
      if (!(await isPortFree(port))) {
        throw new BrokerStartError(`port ${port} on 127.0.0.1 is in use; stop what holds it or pick another port`);
      }
    }
    options.log?.(`Starting Pulsar ${version} (admin ${adminUrl}, data ${dataDir})...`);
    const started = performance.now();
    current = spawnJvm(java, javaArgs, dataDir, logFile, version, ownsDataDir);
    try {
      await waitForAdmin(adminUrl, current, startTimeoutMs, logFile, version);
    } catch (error) {
      await stopProcess(current);
      throw error;
    }
    startupMs = performance.now() - started;
  }

  try {
    await launch();
  } catch (error) {
    // The error carries the log's tail; a temporary directory would only pile up in /tmp.
    if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }

  const handle: BrokerHandle = {
    adminUrl,
    serviceUrl: `pulsar://127.0.0.1:${brokerPort}`,
    wsUrl: `ws://127.0.0.1:${webPort}`,
    version,
    webPort,
    brokerPort,
    dataDir,
    logFile,
    get pid() {
      return current?.pid ?? -1;
    },
    get startupMs() {
      return startupMs;
    },
    isRunning: () => current !== undefined && !current.hasExited(),
    async stop(stopOptions = {}) {
      if (current) await stopProcess(current);
      current = undefined;
      const keepData = stopOptions.keepData ?? !ownsDataDir;
      if (!keepData && !isDataRemoved) {
        rmSync(dataDir, { recursive: true, force: true });
        isDataRemoved = true;
      } else if (ownsDataDir && !isDataRemoved) {
        // A kept temporary dir is not running anything now: restart the sweeper's grace period.
        const now = new Date();
        utimesSync(path.join(dataDir, DATA_DIR_MARKER), now, now);
      }
    },
    async start() {
      if (handle.isRunning()) return;
      await launch();
    },
    async restart() {
      await handle.stop({ keepData: true });
      await launch();
    },
  };
  return handle;
}

function prepareDataDir(dataDir: string, keepData: boolean): void {
  const marker = path.join(dataDir, DATA_DIR_MARKER);
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0 && !existsSync(marker)) {
    throw new BrokerStartError(`${dataDir} is not empty and was not made by this tool (no ${DATA_DIR_MARKER}); refusing to use it as a Pulsar data dir`);
  }
  if (!keepData) rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(marker, "Pulsar standalone data written by tools/pulsar/broker.ts\n");
}

function spawnJvm(java: string, args: string[], dataDir: string, logFile: string, version: PulsarVersion, ownsDataDir: boolean): RunningProcess {
  const logFd = openSync(logFile, "a");
  writeSync(logFd, `\n===== [baton] ${new Date().toISOString()} starting Pulsar ${version}: ${java} ${args.join(" ")}\n`);
  const env = { ...process.env };
  // Would switch the standalone to ZooKeeper mode.
  delete env.PULSAR_STANDALONE_USE_ZOOKEEPER;
  let child: ChildProcess;
  try {
    // detached: its own process group, killed as a group; stdin stays a pipe that the launcher
    // watches, so the JVM exits when this process dies without a chance to stop it.
    child = spawn(java, args, { cwd: dataDir, detached: true, stdio: ["pipe", logFd, logFd], env });
  } finally {
    closeSync(logFd);
  }
  const pid = child.pid;
  if (pid === undefined) throw new BrokerStartError(`could not spawn ${java}`);
  const release = guardProcessGroup(pid, { removeOnExit: ownsDataDir ? dataDir : undefined });
  // EPIPE once the JVM is gone; the exit handler below is what reports that.
  child.stdin?.on("error", () => undefined);
  let hasExited = false;
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => {
      hasExited = true;
      release();
      resolve();
    });
  });
  return { child, pid, exited, hasExited: () => hasExited, release };
}

async function waitForAdmin(adminUrl: string, run: RunningProcess, timeoutMs: number, logFile: string, version: PulsarVersion): Promise<void> {
  const url = `${adminUrl}/admin/v2/namespaces/public/default`;
  const deadline = performance.now() + timeoutMs;
  let lastProblem = "no answer yet";
  while (performance.now() < deadline) {
    if (run.hasExited()) {
      throw new BrokerStartError(
        `Pulsar ${version} exited (code ${run.child.exitCode ?? run.child.signalCode}) before ${url} answered 200; last lines of ${logFile}:\n${readLogTail(logFile, 40)}`,
      );
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(READY_REQUEST_TIMEOUT_MS) });
      await response.arrayBuffer();
      if (response.status === 200) return;
      lastProblem = `HTTP ${response.status}`;
    } catch (error) {
      // Connection refused and timeouts are expected while the JVM starts; keep the last for the report.
      lastProblem = error instanceof Error ? `${error.message}${causeOf(error)}` : String(error);
    }
    await Promise.race([delay(READY_POLL_INTERVAL_MS), run.exited]);
  }
  throw new BrokerStartError(
    `Pulsar ${version} did not answer 200 on ${url} within ${timeoutMs} ms (last: ${lastProblem}); last lines of ${logFile}:\n${readLogTail(logFile, 40)}`,
  );
}

async function stopProcess(run: RunningProcess): Promise<void> {
  if (run.hasExited()) return;
  signalProcessGroup(run.pid, "SIGTERM");
  // ref: false, so that the grace timer never keeps a finished script alive.
  const stoppedInTime = await Promise.race([run.exited.then(() => true), delay(STOP_GRACE_MS, undefined, { ref: false }).then(() => false)]);
  if (!stoppedInTime) {
    signalProcessGroup(run.pid, "SIGKILL");
    await run.exited;
  }
  run.release();
}

function causeOf(error: Error): string {
  return error.cause instanceof Error ? ` (${error.cause.message})` : "";
}
