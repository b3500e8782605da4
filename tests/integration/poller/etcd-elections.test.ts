import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";

import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { isEtcdLeaseUnrenewed } from "@/components/locks/kinds/kind-facts";
import { type ClusterConfig, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { ETCDCTL_BINARY } from "@/tests/support/ensure-etcd";
import { type Contender, startElectCandidate, startEtcd3Candidate, startEtcd3Lock, startLockContender } from "@/tests/support/etcd-contenders";
import { startEtcdServer, stopEtcdServers, type TestEtcdServer } from "@/tests/support/etcd-servers";
import { createTestDb, registerCluster, startPoller, waitFor, type RunningPoller } from "@/tests/support/poller-harness";
import { startTcpProxy, type TcpProxy } from "@/tests/support/tcp-proxy";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

// The worker's poller against a real etcd 3.4 (Debian's) and the real PostgreSQL, with the
// contenders Go services run (etcdctl elect / etcdctl lock: Go's concurrency package) and the
// Node etcd3 client's Election: a leader and its queue, a clean resign, a crashed holder whose
// key outlives it until its lease ends, a stalled holder, the server down and back, and a
// compaction while Baton was cut off. Baton reaches etcd through a TCP proxy it can be cut from.

const databaseUrl = getTestDatabaseUrl();
let db: Db;
let server: TestEtcdServer;
let proxy: TcpProxy;
const pollers: RunningPoller[] = [];
const logs: string[] = [];
let contenders: Contender[] = [];
const run = randomUUID().slice(0, 8);
const clusterName = `etcd-${Date.now().toString(36)}`;
const elections = `baton-test/${run}/elections/`;
const locks = `baton-test/${run}/locks/`;
const nodeLocks = `baton-test/${run}/node-locks/`;
let cluster: ClusterConfig;
let clusterId: number;

type ChangeRow = { kind: string; ending: string | null; fromHolder: string | null; toHolder: string | null; isDuringGap: boolean };

async function changesOf(key: string): Promise<ChangeRow[]> {
  return db.holderChange.findMany({
    where: { clusterId, resource: { resourceKey: key } },
    orderBy: [{ newSeenAt: "asc" }, { id: "asc" }],
    select: { kind: true, ending: true, fromHolder: true, toHolder: true, isDuringGap: true },
  });
}

/** How each holder change compared with the next holder predicted just before it. */
async function predictionsOf(key: string) {
  return db.holderChange.findMany({
    where: { clusterId, resource: { resourceKey: key } },
    orderBy: [{ newSeenAt: "asc" }, { id: "asc" }],
    select: { predictedHolder: true, prediction: true },
  });
}

async function holdRow(key: string) {
  const row = await db.heldResource.findUnique({
    where: { clusterId_resourceKey: { clusterId, resourceKey: key } },
    select: { kind: true, holder: true, holderToken: true, expiresAt: true, staleSince: true, lastError: true, consumers: true, details: true },
  });
  return row && { ...row, waiters: (row.consumers as { name: string }[]).map((w) => w.name) };
}

/** The kind's own details of a hold row (lib/sources/etcd/etcd-observation.ts). */
function sourceOf(row: Awaited<ReturnType<typeof holdRow>>): Record<string, unknown> {
  return (row?.details as { source?: Record<string, unknown> } | undefined)?.source ?? {};
}

function etcdctl(...args: string[]): string {
  return execFileSync(ETCDCTL_BINARY, [`--endpoints=127.0.0.1:${server.clientPort}`, ...args], { env: { ...process.env, ETCDCTL_API: "3" }, encoding: "utf8" });
}

/** The keys under `prefix` in create-revision order, as etcd has them. */
function keysUnder(prefix: string): { key: string; value: string; createRevision: number }[] {
  const answer = JSON.parse(etcdctl("get", "--prefix", prefix, "-w", "json")) as { kvs?: { key: string; value?: string; create_revision: number }[] };
  return (answer.kvs ?? [])
    .map((kv) => ({
      key: Buffer.from(kv.key, "base64").toString(),
      value: Buffer.from(kv.value ?? "", "base64").toString(),
      createRevision: kv.create_revision,
    }))
    .sort((a, b) => a.createRevision - b.createRevision);
}

/** Starts a contender and waits until its key exists, so that the queue's order is the start order. */
async function campaign(start: () => Contender, prefix: string): Promise<Contender> {
  const before = keysUnder(prefix).length;
  const contender = start();
  contenders.push(contender);
  await waitFor(
    async () => keysUnder(prefix).length,
    (count) => count > before,
    `${contender.name}'s key under ${prefix}`,
    100,
    50,
  );
  return contender;
}

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  server = await startEtcdServer();
  proxy = await startTcpProxy(server.clientPort);
  cluster = loadConfig({
    BATON_CLUSTERS: JSON.stringify([
      {
        kind: "etcd",
        name: clusterName,
        endpoints: [proxy.url],
        pollIntervalMs: 500,
        discoveryIntervalMs: 1_000,
        // A loaded machine (the clock pass beside the browser tests, load 10-15) took over 500 ms to
        // answer a read: the source went stale and the crash's expiry was recorded during a gap. The
        // outages here are a stopped server or a cut proxy, both refused at once, never waited out.
        requestTimeoutMs: 5_000,
        prefixes: [
          { prefix: elections, layout: "go-election", mustBeHeld: true },
          { prefix: locks, layout: "go-mutex" },
          { prefix: `election/${run}-`, layout: "etcd3-election" },
          { prefix: nodeLocks, layout: "auto" },
        ],
      },
    ]),
  }).clusters[0]!;
  clusterId = await registerCluster(db, cluster);
  pollers.push(startPoller({ databaseUrl, cluster, clusterId, pollerId: "etcd-test-1", logs }));
}, 60_000);

afterEach(async () => {
  await Promise.all(contenders.map((c) => c.kill()));
  contenders = [];
});

afterAll(async () => {
  await Promise.all(contenders.map((c) => c.kill()));
  for (const poller of pollers) await poller.stop();
  await proxy?.close();
  await stopEtcdServers(server ? [server] : []);
  await db.cluster.deleteMany({ where: { name: clusterName } });
  await db.$disconnect();
});

describe("the poller on etcd elections and locks", () => {
  it("registers the cluster as an etcd cluster with its prefixes", async () => {
    const row = await db.cluster.findUniqueOrThrow({ where: { name: clusterName }, select: { kind: true, scope: true } });
    expect(row).toMatchObject({
      kind: "ETCD",
      scope: {
        patterns: [
          { match: elections, layout: "go-election", mustBeHeld: true },
          { match: locks, layout: "go-mutex", mustBeHeld: false },
          { layout: "etcd3-election" },
          { layout: "auto" },
        ],
        prefixes: [
          { prefix: elections, layout: "go-election", mustBeHeld: true },
          { prefix: locks, layout: "go-mutex" },
          { layout: "etcd3-election" },
          { prefix: nodeLocks, layout: "auto" },
        ],
      },
    });
  });

  it("an election of 3 etcdctl candidates: the lowest create revision leads, the others wait in order; a resign hands over (RELEASED)", async () => {
    const name = `${elections}orders`;
    const a = await campaign(() => startElectCandidate(server.url, name, "pod-a"), `${name}/`);
    await campaign(() => startElectCandidate(server.url, name, "pod-b"), `${name}/`);
    await campaign(() => startElectCandidate(server.url, name, "pod-c"), `${name}/`);
    const [first] = keysUnder(`${name}/`);
    const held = await waitFor(
      () => holdRow(name),
      (row) => row?.holder === "pod-a" && row.waiters.length === 2,
      "pod-a to lead with two waiters",
    );
    expect(held).toMatchObject({
      kind: "ETCD_LOCK",
      waiters: ["pod-b", "pod-c"],
      details: { source: { layout: "go-election", key: first!.key, createRevision: first!.createRevision, leaseGrantedTtlS: 60 } },
    });
    // The token is the lease (the key's last segment, in hex) and the key's create revision.
    expect(held!.holderToken).toBe(`${first!.key.split("/").pop()}@${first!.createRevision}`);
    // etcdctl's session lease is 60 s, kept alive: the hold ends no sooner than ~40 s from now.
    expect(held!.expiresAt!.getTime() - Date.now()).toBeGreaterThan(40_000);

    a.signal("SIGTERM"); // etcdctl resigns: its key is deleted at once
    const rows = await waitFor(
      () => changesOf(name),
      (r) => r.length > 0,
      "the hand-over to be recorded",
    );
    expect(rows).toEqual([{ kind: "HOLDER_CHANGED", ending: "RELEASED", fromHolder: "pod-a", toHolder: "pod-b", isDuringGap: false }]);
    expect(await holdRow(name)).toMatchObject({ holder: "pod-b", waiters: ["pod-c"] });
    // The queue's head before the hand-over (the next create revision) is who took over.
    expect(await predictionsOf(name)).toEqual([{ predictedHolder: "pod-b", prediction: "CONFIRMED" }]);
  });

  it("a crashed leader (etcdctl elect, kill -9) leads on for its session's 60 s lease, then expires and the next candidate leads", async () => {
    const name = `${elections}crash`;
    const a = await campaign(() => startElectCandidate(server.url, name, "pod-1"), `${name}/`);
    await campaign(() => startElectCandidate(server.url, name, "pod-2"), `${name}/`);
    const live = await waitFor(
      () => holdRow(name),
      (row) => row?.holder === "pod-1" && row.waiters[0] === "pod-2",
      "pod-1 to lead",
    );
    // A live leader's client renews its lease: the lock page does not flag it.
    expect(isEtcdLeaseUnrenewed(sourceOf(live))).toBe(false);
    await a.kill();
    const killedAt = Date.now();
    // Dead, but etcd still has its key: Baton shows it leading, with the time its lease has left.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const dead = (await holdRow(name))!;
    expect(dead).toMatchObject({ holder: "pod-1", staleSince: null });
    expect(dead.expiresAt!.getTime() - killedAt).toBeLessThanOrEqual(60_000);
    expect(dead.expiresAt!.getTime() - killedAt).toBeGreaterThan(30_000);
    // Nobody renews the dead leader's lease: once under half of it is left, the lock page flags it.
    const unrenewed = await waitFor(
      () => holdRow(name),
      (row) => row !== null && isEtcdLeaseUnrenewed(sourceOf(row)),
      "the dead leader's lease to be read under half its TTL",
      400,
      200,
    );
    expect(unrenewed).toMatchObject({ holder: "pod-1", staleSince: null });
    const rows = await waitFor(
      () => changesOf(name),
      (r) => r.length > 0,
      "the expiry to be recorded",
      400,
      200,
    );
    expect(Date.now() - killedAt).toBeGreaterThan(30_000);
    expect(rows).toEqual([{ kind: "HOLDER_CHANGED", ending: "EXPIRED", fromHolder: "pod-1", toHolder: "pod-2", isDuringGap: false }]);
  });

  it("a crashed holder (etcdctl lock, kill -9) keeps its key until its lease ends; then it expired and the next in line holds", async () => {
    const name = `${locks}daily-job`;
    const a = await campaign(() => startLockContender(server.url, name, 3, "lock-a"), `${name}/`);
    await a.waitForOutput(/daily-job\//);
    await campaign(() => startLockContender(server.url, name, 3, "lock-b"), `${name}/`);
    const [first, second] = keysUnder(`${name}/`);
    // A Mutex's value is empty: the holder is named by its lease id.
    const leaseA = first!.key.split("/").pop()!;
    const leaseB = second!.key.split("/").pop()!;
    await waitFor(
      () => holdRow(name),
      (row) => row?.holder === leaseA && row.waiters[0] === leaseB,
      "lock-a to hold it, lock-b waiting",
    );
    await a.kill();
    const killedAt = Date.now();
    // Dead, but its key is still there: etcd (and Baton) still say it holds the lock.
    expect(keysUnder(`${name}/`)[0]!.key).toBe(first!.key);
    expect((await holdRow(name))!.holder).toBe(leaseA);
    const rows = await waitFor(
      () => changesOf(name),
      (r) => r.length > 0,
      "the expiry to be recorded",
      100,
      100,
    );
    expect(Date.now() - killedAt).toBeGreaterThan(1_000);
    expect(rows).toEqual([{ kind: "HOLDER_CHANGED", ending: "EXPIRED", fromHolder: leaseA, toHolder: leaseB, isDuringGap: false }]);
  });

  it("the Node etcd3 client's election: a crashed leader expires with its lease and the next candidate leads", async () => {
    const election = `${run}-billing`;
    const name = `election/${election}`;
    const a = await campaign(() => startEtcd3Candidate(server.url, election, "node-a", 2), `${name}/`);
    await a.waitForOutput(/elected/);
    await campaign(() => startEtcd3Candidate(server.url, election, "node-b", 2), `${name}/`);
    const held = await waitFor(
      () => holdRow(name),
      (row) => row?.holder === "node-a" && row.waiters.length === 1,
      "node-a to lead",
    );
    expect(held).toMatchObject({ waiters: ["node-b"], details: { source: { layout: "etcd3-election", leaseGrantedTtlS: 2 } } });
    await a.kill();
    const rows = await waitFor(
      () => changesOf(name),
      (r) => r.length > 0,
      "the expiry to be recorded",
      100,
      100,
    );
    expect(rows).toEqual([{ kind: "HOLDER_CHANGED", ending: "EXPIRED", fromHolder: "node-a", toHolder: "node-b", isDuringGap: false }]);
  });

  it("the Node etcd3 client's Lock (told apart by layout auto): one key under a 30 s lease, held, then released", async () => {
    const name = `${nodeLocks}report`;
    const holder = startEtcd3Lock(server.url, name, "report-a");
    contenders.push(holder);
    await holder.waitForOutput(/acquired/);
    // The lease id as a string (etcdctl's JSON prints it as a number, which loses digits).
    const range = await fetch(`${server.url}/v3/kv/range`, { method: "POST", body: JSON.stringify({ key: Buffer.from(name).toString("base64") }) });
    const lease = ((await range.json()) as { kvs: { lease: string; value?: string }[] }).kvs[0]!;
    expect(lease.value ?? "").toBe("");
    const held = await waitFor(
      () => holdRow(name),
      (row) => row?.holder !== null && row?.holder !== undefined,
      "the lock to be seen held",
    );
    // Its value is empty: the holder is named by its lease id, in hex.
    expect(held).toMatchObject({ holder: BigInt(lease.lease).toString(16), waiters: [], details: { source: { layout: "etcd3-lock", leaseGrantedTtlS: 30 } } });
    holder.signal("SIGTERM");
    const rows = await waitFor(
      () => changesOf(name),
      (r) => r.length > 0,
      "the release to be recorded",
    );
    expect(rows).toEqual([{ kind: "HOLDER_LOST", ending: "RELEASED", fromHolder: held!.holder, toHolder: null, isDuringGap: false }]);
  });

  it("a holder stopped past its lease (SIGSTOP): the lock expires while held, the next takes it, and the first waking up changes nothing", async () => {
    const name = `${locks}gc-pause`;
    const a = await campaign(() => startLockContender(server.url, name, 2, "pause-a"), `${name}/`);
    await a.waitForOutput(/gc-pause\//);
    const b = await campaign(() => startLockContender(server.url, name, 2, "pause-b"), `${name}/`);
    const leaseA = keysUnder(`${name}/`)[0]!.key.split("/").pop()!;
    await waitFor(
      () => holdRow(name),
      (row) => row?.holder === leaseA,
      "pause-a to hold it",
    );
    a.signal("SIGSTOP"); // a GC pause: no keep-alive reaches etcd
    await b.waitForOutput(/gc-pause\//);
    const rows = await waitFor(
      () => changesOf(name),
      (r) => r.length > 0,
      "the expiry to be recorded",
      100,
      100,
    );
    expect(rows).toEqual([{ kind: "HOLDER_CHANGED", ending: "EXPIRED", fromHolder: leaseA, toHolder: expect.any(String), isDuringGap: false }]);
    a.signal("SIGCONT");
    const holderB = rows[0]!.toHolder;
    await waitFor(
      () => holdRow(name),
      (row) => row?.holder === holderB && row.staleSince === null,
      "pause-b to keep it after pause-a woke up",
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await changesOf(name)).toHaveLength(1);
  });

  it("an etcd that is down makes its elections stale, never free; back with the same data, nothing was invented", async () => {
    const name = `${elections}outage`;
    await campaign(() => startElectCandidate(server.url, name, "pod-x"), `${name}/`);
    await waitFor(
      () => holdRow(name),
      (row) => row?.holder === "pod-x",
      "pod-x to lead",
    );
    await server.stop();
    try {
      const stale = await waitFor(
        () => holdRow(name),
        (row) => row?.staleSince !== null,
        "the election to go stale",
        100,
        100,
      );
      expect(stale).toMatchObject({ holder: "pod-x" });
      expect(stale!.lastError).toMatch(/etcd/);
    } finally {
      await server.restart();
    }
    // etcdctl reconnects and its lease (renewed by the restarted member) still holds: same key, same hold.
    await waitFor(
      () => holdRow(name),
      (row) => row?.staleSince === null,
      "the election to be current again",
      150,
      100,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await holdRow(name)).toMatchObject({ holder: "pod-x", staleSince: null });
    expect(await changesOf(name)).toEqual([]);
    expect(logs.some((line) => /watch of .* resumed from revision/.test(line))).toBe(true);
  });

  it("a compaction while Baton is cut off: the watch cannot resume, a full read finds the hand-over, recorded once, during the gap", async () => {
    const name = `${elections}compacted`;
    const a = await campaign(() => startElectCandidate(server.url, name, "pod-p"), `${name}/`);
    await campaign(() => startElectCandidate(server.url, name, "pod-q"), `${name}/`);
    await waitFor(
      () => holdRow(name),
      (row) => row?.holder === "pod-p" && row.staleSince === null,
      "pod-p to lead",
    );
    proxy.cut();
    try {
      await waitFor(
        () => holdRow(name),
        (row) => row?.staleSince !== null,
        "the election to go stale while cut off",
        100,
        100,
      );
      a.signal("SIGTERM");
      await waitFor(
        async () => keysUnder(`${name}/`).map((kv) => kv.value),
        (values) => values.join() === "pod-q",
        "pod-q to lead in etcd",
      );
      // A write after the resign, then a compaction up to it: the resign's event is gone from
      // the history (a compaction keeps its own revision, so it must come after the delete's).
      etcdctl("put", `baton-test/${run}/unwatched`, "x");
      const revision = (JSON.parse(etcdctl("get", "x", "-w", "json")) as { header: { revision: number } }).header.revision;
      etcdctl("compact", String(revision));
    } finally {
      proxy.restore();
    }
    const rows = await waitFor(
      () => changesOf(name),
      (r) => r.length > 0,
      "the hand-over to be recorded after the compaction",
    );
    // The compacted events were the only witness of how pod-p's hold ended: Baton records the
    // hand-over during a gap and claims no ending (a lease TTL is whole seconds: not enough to
    // say pod-p lived on, so not a take-over either).
    expect(rows).toEqual([{ kind: "HOLDER_CHANGED", ending: null, fromHolder: "pod-p", toHolder: "pod-q", isDuringGap: true }]);
    await waitFor(
      async () => logs.some((line) => /compacted/.test(line)),
      (isSeen) => isSeen,
      "the watch to report the compaction",
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await changesOf(name)).toHaveLength(1);
  });
});
