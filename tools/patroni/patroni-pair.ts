// Two Patroni members (PostgreSQL high availability) on a given etcd v3 or ZooKeeper (Patroni's
// `etcd3:` or `zookeeper:` setting), for the tests: pg0
// bootstraps the cluster and leads, pg1 follows as a streaming replica. Each member has its own
// PostgreSQL data directory under one temporary directory and its own free ports (REST API,
// PostgreSQL), and runs as the `postgres` user, as Patroni must. Each Patroni runs under a root
// shell that kills it, and the postmaster it started (in a session of its own, so outside the
// group), when our end of the shell's stdin closes: this process died, even of SIGKILL. (Not
// process-guard's group kill on the way out: it would kill the shell first and leave the
// postmaster running.)
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

import { findFreePort } from "@/tools/free-port";
import { pollUntil } from "@/tools/poll-until";
import { signalProcessGroup } from "@/tools/pulsar/process-guard";

import { ensurePatroni, PATRONI_BINARY, PATRONICTL_BINARY, type PatroniDcs, POSTGRES_BIN_DIR } from "./ensure-patroni";
import { withoutFakeClock } from "@/tools/without-fake-clock";

export type PatroniMemberProcess = {
  name: string;
  restPort: number;
  pgPort: number;
  configFile: string;
  /** Patroni's own pid (not the postmaster's). */
  readonly pid: number;
  /** The postmaster's pid from its data directory, or null when none runs. */
  postmasterPid(): number | null;
  /** Signals Patroni itself (SIGKILL: a crash; SIGTERM: Patroni stops PostgreSQL and lets go). */
  signal(signal: NodeJS.Signals): void;
  isPatroniAlive(): boolean;
  /** What Patroni logged so far. */
  log(): string;
};

export type PatroniPair = {
  scope: string;
  /** Patroni's `namespace` with its trailing slash, e.g. "/service/". */
  namespace: string;
  members: PatroniMemberProcess[];
  /** Runs patronictl against the cluster (as root: it only talks to the store and the REST APIs). */
  patronictl(...args: string[]): string;
  /** The same without blocking this process: what watches it meanwhile keeps running (a switchover takes seconds). */
  runPatronictl(...args: string[]): Promise<string>;
  /**
   * A host crash: SIGKILL of the member's Patroni and its postmaster, resolved once both are gone.
   * Its leader lease (if it led) stays until its TTL runs out.
   */
  crashMember(name: string): Promise<void>;
  /** Starts a crashed member again on its data directory; resolves once it runs as a replica. */
  restartMember(name: string): Promise<PatroniMemberProcess>;
  /** Stops every Patroni and postmaster it started (by pid) and removes the directory. */
  stop(): Promise<void>;
};

/** Where Patroni keeps the cluster (its DCS): etcd v3, or ZooKeeper. */
type PatroniStore = { etcd3: string } | { zookeeper: string[] };

export type PatroniPairOptions = (
  | {
      /** host:port of the etcd client URL (the gRPC JSON gateway Patroni's etcd3 driver speaks). */
      etcdHost: string;
      zookeeperHosts?: undefined;
    }
  | {
      /** The ZooKeeper servers' host:port; Kazoo's session timeout is `ttl` (the server clamps it). */
      zookeeperHosts: string[];
      etcdHost?: undefined;
    }
) & {
  scope: string;
  namespace?: string;
  /** The leader lease's TTL (Patroni's `ttl`): how long a dead primary keeps the lock. */
  ttl?: number;
  loopWait?: number;
  retryTimeout?: number;
  log?: (line: string) => void;
};

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone already: what the caller wants.
  }
}

function userIds(user: string): { uid: number; gid: number } {
  return {
    uid: Number(execFileSync("id", ["-u", user], { encoding: "utf8" }).trim()),
    gid: Number(execFileSync("id", ["-g", user], { encoding: "utf8" }).trim()),
  };
}

function chownTree(dir: string, ids: { uid: number; gid: number }): void {
  chownSync(dir, ids.uid, ids.gid);
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) chownTree(full, ids);
    else chownSync(full, ids.uid, ids.gid);
  }
}

async function isHttpOk(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false;
  }
}

function dcsOf(store: PatroniStore): PatroniDcs {
  return "etcd3" in store ? "etcd3" : "zookeeper";
}

type PatroniSettings = { store: PatroniStore; scope: string; namespace: string; ttl: number; loopWait: number; retryTimeout: number };

/** Patroni's configuration as JSON (YAML's superset: Patroni reads it as is). */
function configOf(options: PatroniSettings, member: { name: string; restPort: number; pgPort: number; dir: string }): object {
  return {
    scope: options.scope,
    namespace: options.namespace,
    name: member.name,
    restapi: { listen: `127.0.0.1:${member.restPort}`, connect_address: `127.0.0.1:${member.restPort}` },
    ...("etcd3" in options.store ? { etcd3: { hosts: options.store.etcd3 } } : { zookeeper: { hosts: options.store.zookeeper } }),
    bootstrap: {
      dcs: {
        ttl: options.ttl,
        loop_wait: options.loopWait,
        retry_timeout: options.retryTimeout,
        maximum_lag_on_failover: 1048576,
        postgresql: {
          use_pg_rewind: false,
          parameters: { max_connections: 20, wal_level: "replica", hot_standby: "on", max_wal_senders: 5, max_replication_slots: 5 },
        },
      },
      initdb: [{ encoding: "UTF8" }, { locale: "C" }],
      pg_hba: ["local all all trust", "host replication replicator 127.0.0.1/32 trust", "host all all 127.0.0.1/32 trust"],
    },
    postgresql: {
      listen: `127.0.0.1:${member.pgPort}`,
      connect_address: `127.0.0.1:${member.pgPort}`,
      data_dir: path.join(member.dir, "data"),
      bin_dir: POSTGRES_BIN_DIR,
      pgpass: path.join(member.dir, "pgpass"),
      authentication: { replication: { username: "replicator", password: "replicator" }, superuser: { username: "postgres", password: "postgres" } },
      parameters: { unix_socket_directories: member.dir, shared_buffers: "16MB" },
    },
    watchdog: { mode: "off" },
    tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
  };
}

export async function startPatroniPair(input: PatroniPairOptions): Promise<PatroniPair> {
  const log = input.log ?? ((line: string) => process.stderr.write(`[patroni] ${line}\n`));
  const store: PatroniStore = input.zookeeperHosts !== undefined ? { zookeeper: input.zookeeperHosts } : { etcd3: input.etcdHost };
  ensurePatroni(dcsOf(store), log);
  const settings: PatroniSettings = {
    store,
    scope: input.scope,
    namespace: input.namespace ?? "/service/",
    ttl: input.ttl ?? 12,
    loopWait: input.loopWait ?? 2,
    retryTimeout: input.retryTimeout ?? 3,
  };
  const root = mkdtempSync(path.join(os.tmpdir(), "baton-patroni-"));
  const postgresUser = userIds("postgres");
  const started: { shell: ChildProcess; member: PatroniMemberProcess }[] = [];

  async function startMember(name: string): Promise<PatroniMemberProcess> {
    const dir = path.join(root, name);
    mkdirSync(dir, { recursive: true });
    const [restPort, pgPort] = [await findFreePort(), await findFreePort()];
    const configFile = path.join(dir, `${name}.yml`);
    writeFileSync(configFile, JSON.stringify(configOf(settings, { name, restPort, pgPort, dir }), null, 2));
    const logFile = path.join(dir, "patroni.log");
    writeFileSync(logFile, "");
    chownTree(root, postgresUser);
    const dataDir = path.join(dir, "data");
    const script = [
      `setpriv --reuid=postgres --regid=postgres --init-groups "${PATRONI_BINARY}" "$1" >>"$2" 2>&1 & patroni=$!`,
      'echo "$patroni"',
      "cat >/dev/null",
      'kill -9 "$patroni" 2>/dev/null',
      '[ -f "$3/postmaster.pid" ] && kill -9 "$(head -n 1 "$3/postmaster.pid")" 2>/dev/null',
    ].join("; ");
    const shell = spawn("sh", ["-c", script, "patroni-guard", configFile, logFile, dataDir], {
      stdio: ["pipe", "pipe", "ignore"],
      detached: true,
      // On the real clock, as the etcd it may talk to (a Go server libfaketime cannot reach):
      // Patroni and its PostgreSQL are one outside system, whose leases etcd ends in real time. On
      // ZooKeeper the server times the sessions, by its own clock: Patroni's clock does not matter.
      env: { ...withoutFakeClock(process.env), HOME: dir, LC_ALL: "C.UTF-8", PGPASSFILE: path.join(dir, "pgpass") },
    });
    if (shell.pid === undefined) throw new Error(`could not start a shell for Patroni ${name}`);
    shell.stdin!.on("error", () => undefined);
    shell.unref();
    const pid = await new Promise<number>((resolve, reject) => {
      shell.stdout!.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim().split("\n")[0])));
      shell.once("exit", (code) => reject(new Error(`Patroni ${name}'s shell exited (${code}) before starting it`)));
    });
    (shell.stdout as unknown as { unref?: () => void }).unref?.();
    (shell.stdin as unknown as { unref?: () => void }).unref?.();
    const member: PatroniMemberProcess = {
      name,
      restPort,
      pgPort,
      configFile,
      pid,
      postmasterPid() {
        const file = path.join(dataDir, "postmaster.pid");
        if (!existsSync(file)) return null;
        const found = Number(readFileSync(file, "utf8").split("\n")[0]);
        return Number.isInteger(found) && found > 0 && isAlive(found) ? found : null;
      },
      signal: (signal) => signalPid(pid, signal),
      isPatroniAlive: () => isAlive(pid),
      log: () => readFileSync(logFile, "utf8"),
    };
    started.push({ shell, member });
    return member;
  }

  async function waitForRole(member: PatroniMemberProcess, role: "primary" | "replica"): Promise<void> {
    await pollUntil(
      async () => {
        if (!member.isPatroniAlive()) throw new Error(`Patroni ${member.name} exited: ${member.log().trim().split("\n").slice(-5).join(" | ")}`);
        return isHttpOk(`http://127.0.0.1:${member.restPort}/${role}`);
      },
      (isUp) => isUp,
      { description: `Patroni ${member.name} to run as ${role}`, maxAttempts: 240, intervalMs: 500 },
    );
  }

  async function stop(): Promise<void> {
    for (const { member } of started) member.signal("SIGKILL");
    // Orphaned or not, each postmaster is stopped by its pid: immediate shutdown, then a kill.
    const postmasters = started.flatMap(({ member }) => member.postmasterPid() ?? []);
    for (const postmaster of postmasters) signalPid(postmaster, "SIGQUIT");
    try {
      await pollUntil(
        async () => [...postmasters, ...started.map(({ member }) => member.pid)].filter(isAlive),
        (alive) => alive.length === 0,
        { description: "Patroni and PostgreSQL to exit", maxAttempts: 100, intervalMs: 100 },
      );
    } catch {
      for (const postmaster of postmasters) signalPid(postmaster, "SIGKILL");
    }
    for (const { shell } of started) if (shell.pid !== undefined) signalProcessGroup(shell.pid, "SIGKILL");
    rmSync(root, { recursive: true, force: true });
  }

  function memberNamed(members: PatroniMemberProcess[], name: string): PatroniMemberProcess {
    const found = members.find((member) => member.name === name);
    if (found === undefined) throw new Error(`no Patroni member ${name}`);
    return found;
  }

  try {
    const pg0 = await startMember("pg0");
    await waitForRole(pg0, "primary");
    const pg1 = await startMember("pg1");
    await waitForRole(pg1, "replica");
    const members = [pg0, pg1];
    return {
      scope: settings.scope,
      namespace: settings.namespace,
      members,
      async crashMember(name) {
        const member = memberNamed(members, name);
        const postmaster = member.postmasterPid();
        member.signal("SIGKILL");
        if (postmaster !== null) signalPid(postmaster, "SIGKILL");
        await pollUntil(
          async () => member.isPatroniAlive() || (postmaster !== null && isAlive(postmaster)),
          (alive) => !alive,
          { description: `Patroni ${name} and its PostgreSQL to be gone`, maxAttempts: 100, intervalMs: 100 },
        );
        // Its guard shell goes now, while nothing runs on the data directory: later, its kill of
        // the postmaster.pid it finds would hit the restarted member's postmaster.
        const at = started.findIndex((entry) => entry.member === member);
        if (at >= 0) {
          const { shell } = started.splice(at, 1)[0]!;
          const gone = new Promise<void>((resolve) => (shell.exitCode !== null || shell.signalCode !== null ? resolve() : shell.once("exit", () => resolve())));
          shell.stdin!.end();
          await gone;
        }
      },
      async restartMember(name) {
        const index = members.indexOf(memberNamed(members, name));
        const member = await startMember(name);
        members[index] = member;
        await waitForRole(member, "replica");
        return member;
      },
      patronictl: (...args) =>
        execFileSync(PATRONICTL_BINARY, ["-c", pg0.configFile, ...args], {
          encoding: "utf8",
          env: { ...withoutFakeClock(process.env), LC_ALL: "C.UTF-8" },
          stdio: ["ignore", "pipe", "pipe"],
        }),
      runPatronictl: async (...args) =>
        (
          await promisify(execFile)(PATRONICTL_BINARY, ["-c", pg0.configFile, ...args], {
            encoding: "utf8",
            env: { ...withoutFakeClock(process.env), LC_ALL: "C.UTF-8" },
          })
        ).stdout,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
