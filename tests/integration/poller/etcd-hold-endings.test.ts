import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { openHoldCycles } from "@/lib/poller/hold-cycles";
import type { SourceCycles } from "@/lib/poller/source-cycles";
import { createEtcdHoldSource, parseEtcdClusterConfig } from "@/lib/sources/etcd";
import type { HoldHint } from "@/lib/poller/contract/hold-observation";
import { type Contender, startLockContender } from "@/tests/support/etcd-contenders";
import { ETCDCTL_BINARY } from "@/tests/support/ensure-etcd";
import { startEtcdServer, stopEtcdServers, type TestEtcdServer } from "@/tests/support/etcd-servers";
import { pollUntil } from "@/tests/support/poll-until";

// How an etcd mutex's hold ended, judged by what etcd knows at the delete: the shared hold cycles
// against a real etcd 3.4 and `etcdctl lock` contenders (Go's concurrency.Mutex, which renews its
// session lease every third of its TTL). The cycles run only when the test says so.

let server: TestEtcdServer;
let cycles: SourceCycles;
const contenders: Contender[] = [];
const hints: HoldHint[] = [];
const locks = `baton-test/${randomUUID().slice(0, 8)}/locks/`;

function etcdctl(...args: string[]): string {
  return execFileSync(ETCDCTL_BINARY, [`--endpoints=127.0.0.1:${server.clientPort}`, ...args], { env: { ...process.env, ETCDCTL_API: "3" }, encoding: "utf8" });
}

function keysUnder(prefix: string): string[] {
  const answer = JSON.parse(etcdctl("get", "--prefix", prefix, "--keys-only", "-w", "json")) as { kvs?: { key: string; create_revision: number }[] };
  return (answer.kvs ?? []).sort((a, b) => a.create_revision - b.create_revision).map((kv) => Buffer.from(kv.key, "base64").toString());
}

/** Seconds etcd says the lease has left (-1: gone). */
function leaseTtl(leaseHex: string): number {
  const answer = JSON.parse(etcdctl("lease", "timetolive", leaseHex, "-w", "json")) as { ttl: number };
  return answer.ttl;
}

async function cycle() {
  const result = await cycles.run();
  cycles.commit(result);
  return result;
}

beforeAll(async () => {
  server = await startEtcdServer();
  const config = {
    ...parseEtcdClusterConfig({ kind: "etcd", name: "endings", endpoints: [server.url], prefixes: [{ prefix: locks, layout: "go-mutex" }] }),
    pollIntervalMs: 60_000,
  };
  const source = createEtcdHoldSource(config);
  // The source as the worker uses it, its signals also recorded here: the test knows when they arrived.
  const recorded = {
    ...source,
    watch: (onHints: (batch: HoldHint[]) => void, onResync: (reason: string) => void) =>
      source.watch((batch) => {
        hints.push(...batch);
        onHints(batch);
      }, onResync),
  };
  cycles = await openHoldCycles(recorded, [], { resourceKind: "ETCD_LOCK", discoveryIntervalMs: 60_000, pollIntervalMs: 60_000 });
}, 60_000);

afterAll(async () => {
  await Promise.all(contenders.map((contender) => contender.kill()));
  await cycles?.close();
  await stopEtcdServers(server ? [server] : []);
});

describe("etcd mutex endings", () => {
  it("a renewing holder that unlocks after the TTL Baton last read: released (its lease still lives), not expired", async () => {
    const name = `${locks}daily-job`;
    const a = startLockContender(server.url, name, 2, "lock-a");
    contenders.push(a);
    await a.waitForOutput(/daily-job\//);
    const b = startLockContender(server.url, name, 2, "lock-b");
    contenders.push(b);
    await pollUntil(
      async () => keysUnder(`${name}/`),
      (keys) => keys.length === 2,
      { description: "lock-b's key" },
    );
    const leaseA = keysUnder(`${name}/`)[0]!.split("/").pop()!;

    const first = await cycle();
    const read = first.states.shape === "hold" ? first.states.states.find((state) => state.resourceKey === name) : undefined;
    expect(read).toMatchObject({ holder: leaseA });
    const knownExpiryMs = Date.parse(read!.expiresAt!);
    // lock-a keeps renewing past the expiry Baton read (no read in between refreshes it).
    await pollUntil(
      async () => ({ now: Date.now(), ttl: leaseTtl(leaseA) }),
      ({ now, ttl }) => now > knownExpiryMs + 500 && ttl > 0,
      {
        description: "lock-a's lease renewed past the expiry Baton read",
        maxAttempts: 100,
      },
    );

    const from = hints.length;
    a.signal("SIGTERM"); // etcdctl unlocks: it deletes its key; its lease is left to run out
    await b.waitForOutput(/daily-job\//);
    await pollUntil(
      async () => hints.slice(from).filter((hint) => hint.key === name && hint.kind !== "change"),
      (ending) => ending.length > 0,
      { description: "the delete's hint" },
    );
    const { changes } = await cycle();
    expect(changes).toMatchObject([{ kind: "HOLDER_CHANGED", fromHolder: leaseA, ending: "RELEASED", details: { hint: "DELETE" } }]);
  });
});
