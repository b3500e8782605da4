import { type ChildProcess, spawn } from "node:child_process";

import { guardProcessGroup, signalProcessGroup } from "@/tools/pulsar/process-guard";
import { ETCDCTL_BINARY, ensureEtcd } from "@/tests/support/ensure-etcd";

// Contenders as real services run them, each in its own process group (guarded: they die with
// the test process) so that a test can crash one (SIGKILL), stall it (SIGSTOP) or stop it
// cleanly (SIGTERM: etcdctl resigns or unlocks and revokes its session's lease).
//   etcdctl elect <name> <proposal>   Go's concurrency.Election, 60 s session
//   etcdctl lock --ttl N <name>       Go's concurrency.Mutex
//   the Node etcd3 client's Election  election/<name>/<lease id in decimal>, TTL of our choice

export type Contender = {
  name: string;
  pid: number;
  /** Everything it printed on stdout so far. */
  output(): string;
  /** Resolves once stdout matches (etcdctl prints the key when it leads or holds). */
  waitForOutput(pattern: RegExp): Promise<void>;
  signal(signal: NodeJS.Signals): void;
  /** SIGKILL, and waits for the exit. */
  kill(): Promise<void>;
};

function startGuarded(name: string, command: string, args: string[], env: Record<string, string> = {}): Contender {
  const child: ChildProcess = spawn(command, args, { cwd: process.cwd(), env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  if (child.pid === undefined) throw new Error(`could not start ${command} for ${name}`);
  const pid = child.pid;
  const release = guardProcessGroup(pid);
  let stdout = "";
  let stderr = "";
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code) => {
      exitCode = code;
      release();
      resolve();
    }),
  );
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const waiter of [...waiters]) {
      if (!waiter.pattern.test(stdout)) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return {
    name,
    pid,
    output: () => stdout,
    waitForOutput: (pattern) =>
      new Promise<void>((resolve, reject) => {
        if (pattern.test(stdout)) return resolve();
        waiters.push({ pattern, resolve });
        void exited.then(() => reject(new Error(`${name} exited (${exitCode}) before printing ${pattern}: ${stderr.trim().split("\n").pop() ?? ""}`)));
      }),
    signal: (signal) => void signalProcessGroup(pid, signal),
    async kill() {
      signalProcessGroup(pid, "SIGCONT");
      signalProcessGroup(pid, "SIGKILL");
      await exited;
    },
  };
}

function etcdctl(endpoint: string, name: string, args: string[], globalFlags: string[] = []): Contender {
  ensureEtcd();
  return startGuarded(name, ETCDCTL_BINARY, [`--endpoints=${endpoint.replace(/^https?:\/\//, "")}`, ...globalFlags, ...args], { ETCDCTL_API: "3" });
}

/**
 * `etcdctl elect <election> <proposal>`: a Go service campaigning. Prints `<election>/<lease hex>`
 * and the proposal once it leads. `globalFlags`: e.g. `--user=root:pw` on a server with auth.
 */
export function startElectCandidate(endpoint: string, election: string, proposal: string, globalFlags: string[] = []): Contender {
  return etcdctl(endpoint, proposal, ["elect", election, proposal], globalFlags);
}

/** `etcdctl lock --ttl <s> <name>`: a Go service taking a Mutex. Prints `<name>/<lease hex>` once it holds it. */
export function startLockContender(endpoint: string, lock: string, ttlSeconds: number, label: string): Contender {
  return etcdctl(endpoint, label, ["lock", `--ttl=${ttlSeconds}`, lock]);
}

/** The Node etcd3 client's Election in its own process: prints "elected" when it leads. */
export function startEtcd3Candidate(endpoint: string, election: string, value: string, ttlSeconds: number): Contender {
  const script = `
    import { Etcd3 } from "etcd3";
    const client = new Etcd3({ hosts: ${JSON.stringify(endpoint)} });
    const campaign = client.election(${JSON.stringify(election)}, ${ttlSeconds}).campaign(${JSON.stringify(value)});
    campaign.on("elected", () => console.log("elected"));
    campaign.on("error", (error) => console.log("error: " + error.message));
    process.on("SIGTERM", async () => { await campaign.resign(); client.close(); process.exit(0); });
  `;
  return startGuarded(value, process.execPath, ["--input-type=module", "-e", script]);
}

/** The Node etcd3 client's Lock in its own process: prints "acquired"; SIGTERM releases it (revokes its lease). */
export function startEtcd3Lock(endpoint: string, key: string, label: string): Contender {
  const script = `
    import { Etcd3 } from "etcd3";
    const client = new Etcd3({ hosts: ${JSON.stringify(endpoint)} });
    const lock = client.lock(${JSON.stringify(key)});
    await lock.acquire();
    console.log("acquired");
    process.on("SIGTERM", async () => { await lock.release(); client.close(); process.exit(0); });
    setInterval(() => {}, 1_000);
  `;
  return startGuarded(label, process.execPath, ["--input-type=module", "-e", script]);
}
