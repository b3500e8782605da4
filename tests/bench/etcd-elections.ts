// Benchmark: Baton on 5,000 etcd elections (Go's concurrency.Election layout, 3 candidates each),
// on a real etcd 3.4 (Debian's).
//  1. The cost of a full read: discovery (keys only), then a read of every election with its
//     holder's lease TTL, cold (every lease read) and warm (leases far from their end not read
//     again): requests, time, etcd's CPU (process_cpu_seconds_total from its /metrics) and
//     Baton's. Two lease layouts: one session per pod (100 pods, as Go services share a session
//     across elections) and one lease per candidate (the worst case: 5,000 holder leases).
//  2. Detection latency through the worker's poller, with the watch: a leader resigns (its key
//     deleted; the clock starts before the delete is sent) or crashes (its lease is not kept
//     alive; the clock starts when etcd deletes the key at the lease's end, as a watcher of our
//     own sees it) -> the change row committed. Target: p95 under 1 s.
// Run: npm run bench:etcd [-- --elections 5000 --trials 20 --interval-ms 5000]
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";

import { loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { createEtcdHoldSource } from "@/lib/sources/etcd";
import { prefixRangeEnd, toBase64 } from "@/lib/sources/etcd/etcd-api";
import { parseEtcdClusterConfig } from "@/lib/sources/etcd/etcd-config";
import { createEtcdTransport } from "@/lib/sources/etcd/etcd-transport";
import { startEtcdServer, stopEtcdServers, type TestEtcdServer } from "@/tests/support/etcd-servers";
import { createTestDb, registerCluster, startPoller, waitFor } from "@/tests/support/poller-harness";
import { startTestDatabase } from "@/tests/support/test-database";

const { values } = parseArgs({
  options: { elections: { type: "string", default: "5000" }, trials: { type: "string", default: "20" }, "interval-ms": { type: "string", default: "5000" } },
});
const electionCount = Number(values.elections);
const trials = Number(values.trials);
const intervalMs = Number(values["interval-ms"]);
const CANDIDATES = 3;
const PODS = 100;
/** etcd's default --max-txn-ops. */
const TXN_OPS = 128;

async function post(server: TestEtcdServer, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.url}/v3/${path}`, { method: "POST", body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

async function inBatches<T>(items: T[], concurrency: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

async function grantLeases(server: TestEtcdServer, count: number, ttlSeconds: number): Promise<string[]> {
  const leases: string[] = new Array(count);
  await inBatches([...Array(count).keys()], 32, async (i) => {
    leases[i] = String((await post(server, "lease/grant", { TTL: ttlSeconds })).ID);
  });
  return leases;
}

const hexOf = (leaseId: string) => BigInt(leaseId).toString(16);

async function putKeys(server: TestEtcdServer, puts: { key: string; value: string; lease: string }[]): Promise<void> {
  const batches: (typeof puts)[] = [];
  for (let i = 0; i < puts.length; i += TXN_OPS) batches.push(puts.slice(i, i + TXN_OPS));
  await inBatches(batches, 8, async (batch) => {
    await post(server, "kv/txn", { success: batch.map((p) => ({ request_put: { key: toBase64(p.key), value: toBase64(p.value), lease: p.lease } })) });
  });
}

/** 5,000 elections of 3 candidates each, created candidate by candidate so that create revisions order them. */
async function populate(server: TestEtcdServer, prefix: string, leaseOf: (election: number, candidate: number) => string): Promise<void> {
  for (let candidate = 0; candidate < CANDIDATES; candidate++) {
    const puts = Array.from({ length: electionCount }, (_, election) => {
      const lease = leaseOf(election, candidate);
      return { key: `${prefix}e${election}/${hexOf(lease)}`, value: `pod-${election}-${candidate}`, lease };
    });
    await putKeys(server, puts);
  }
}

async function etcdCpuSeconds(server: TestEtcdServer): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  return Number(/^process_cpu_seconds_total (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
}

async function measureFullRead(server: TestEtcdServer, label: string, prefix: string): Promise<void> {
  const config = {
    ...parseEtcdClusterConfig({ kind: "etcd", name: "bench", endpoints: [server.url], prefixes: [{ prefix, layout: "go-election" }] }),
    pollIntervalMs: intervalMs,
  };
  const source = createEtcdHoldSource(config);
  const step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const [cpuBefore, batonBefore, started] = [await etcdCpuSeconds(server), process.cpuUsage(), performance.now()];
    const result = await run();
    const elapsed = performance.now() - started;
    const baton = process.cpuUsage(batonBefore);
    const etcdCpu = (await etcdCpuSeconds(server)) - cpuBefore;
    console.log(
      `  ${label.padEnd(30)} ${name.padEnd(22)} ${String(source.takeRequestCount()).padStart(6)} requests  ${elapsed.toFixed(0).padStart(6)} ms  etcd CPU ${etcdCpu.toFixed(2)} s  Baton CPU ${((baton.user + baton.system) / 1e6).toFixed(2)} s`,
    );
    return result;
  };
  try {
    const found = await step("discovery (keys only)", () => source.discover());
    if (found.keys.length !== electionCount) throw new Error(`discovered ${found.keys.length} elections, expected ${electionCount}`);
    const cold = await step("read, cold", () => source.observe(found.keys));
    if (cold.errors.length > 0 || cold.observations.some((o) => o.holder === null))
      throw new Error(`read errors: ${cold.errors[0]?.message ?? "a free election"}`);
    await step("read, warm", () => source.observe(found.keys));
  } finally {
    await source.close();
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summarise(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50)} ms, p95 ${percentile(sorted, 95)} ms, max ${sorted.at(-1)} ms (${sorted.length} trials)`;
}

/** When our own watcher of `prefix` sees the next DELETE. */
async function nextDeleteSeenAt(server: TestEtcdServer, prefix: string, signal: AbortSignal): Promise<number> {
  const transport = createEtcdTransport({ name: "bench-watch", endpoints: [server.url], requestTimeoutMs: 5_000, requestsPerSecond: 100 }, null);
  try {
    const stream = await transport.stream("watch", { create_request: { key: toBase64(prefix), range_end: prefixRangeEnd(prefix).toString("base64") } }, signal);
    for await (const line of stream.lines) {
      const events = (line as { result?: { events?: { type?: string }[] } }).result?.events ?? [];
      if (events.some((event) => event.type === "DELETE")) return Date.now();
    }
    throw new Error("the bench's watch ended");
  } finally {
    await transport.close();
  }
}

async function measureLatency(db: Db, databaseUrl: string, server: TestEtcdServer, prefix: string): Promise<void> {
  const name = `bench-etcd-${randomUUID().slice(0, 6)}`;
  const cluster = loadConfig({
    BATON_CLUSTERS: JSON.stringify([
      { kind: "etcd", name, endpoints: [server.url], pollIntervalMs: intervalMs, prefixes: [{ prefix, layout: "go-election" }] },
    ]),
  }).clusters[0]!;
  const clusterId = await registerCluster(db, cluster);
  const poller = startPoller({ databaseUrl, cluster, clusterId, pollerId: `bench-${name}` });
  const holderOf = async (election: number) =>
    (await db.heldResource.findUnique({ where: { clusterId_resourceKey: { clusterId, resourceKey: `${prefix}e${election}` } }, select: { holder: true } }))
      ?.holder ?? null;
  const changeAfter = (election: number, afterId: bigint) =>
    db.holderChange.findFirst({
      where: { clusterId, id: { gt: afterId }, resource: { resourceKey: `${prefix}e${election}` } },
      select: { detectedAt: true, ending: true },
    });
  const lastChangeId = async () => (await db.holderChange.findFirst({ where: { clusterId }, orderBy: { id: "desc" }, select: { id: true } }))?.id ?? 0n;
  const resign: number[] = [];
  const crash: number[] = [];
  try {
    await waitFor(
      async () => db.heldResource.count({ where: { clusterId, holder: { not: null } } }),
      (count) => count === electionCount,
      "the first full read",
      600,
      100,
    );
    for (let trial = 0; trial < trials; trial++) {
      // Resign: the leader of election `trial` deletes its key (Go's Election.Resign).
      const election = trial;
      const afterId = await lastChangeId();
      await new Promise((resolve) => setTimeout(resolve, Math.random() * intervalMs)); // any phase of the poll cycle
      const leaderKey = `${prefix}e${election}/`;
      const leader = (
        (
          await post(server, "kv/range", {
            key: toBase64(leaderKey),
            range_end: prefixRangeEnd(leaderKey).toString("base64"),
            sort_target: "CREATE",
            sort_order: "ASCEND",
            limit: 1,
          })
        ).kvs as { key: string }[]
      )[0]!;
      const startedAt = Date.now();
      await post(server, "kv/deleterange", { key: leader.key });
      const row = await waitFor(
        () => changeAfter(election, afterId),
        (r) => r !== null,
        "the resign's change row",
        1_000,
        10,
      );
      resign.push(row!.detectedAt.getTime() - startedAt);

      // Crash: a new leader of election `crashElection` under a 3 s lease nobody keeps alive.
      const crashElection = electionCount - 1 - trial;
      const crashPrefix = `${prefix}e${crashElection}/`;
      await post(server, "kv/deleterange", { key: toBase64(crashPrefix), range_end: prefixRangeEnd(crashPrefix).toString("base64") });
      const [shortLease, longLease] = [
        String((await post(server, "lease/grant", { TTL: 3 })).ID),
        String((await post(server, "lease/grant", { TTL: 600 })).ID),
      ];
      await putKeys(server, [{ key: `${crashPrefix}${hexOf(shortLease)}`, value: `doomed-${trial}`, lease: shortLease }]);
      await putKeys(server, [{ key: `${crashPrefix}${hexOf(longLease)}`, value: `next-${trial}`, lease: longLease }]);
      await waitFor(
        () => holderOf(crashElection),
        (holder) => holder === `doomed-${trial}`,
        "the doomed leader to be seen",
        300,
        10,
      );
      const crashAfterId = await lastChangeId();
      const controller = new AbortController();
      const deletedAt = await nextDeleteSeenAt(server, crashPrefix, controller.signal).finally(() => controller.abort());
      const expired = await waitFor(
        () => changeAfter(crashElection, crashAfterId),
        (r) => r !== null,
        "the crash's change row",
        1_000,
        10,
      );
      if (expired!.ending !== "EXPIRED") throw new Error(`a crash recorded as ${expired!.ending}`);
      crash.push(expired!.detectedAt.getTime() - deletedAt);
    }
  } finally {
    await poller.stop();
    await db.cluster.deleteMany({ where: { name } });
  }
  console.log(`detection through the poller (watch on, full read every ${intervalMs} ms, ${electionCount} elections):`);
  console.log(`  leader resigns (delete sent -> change row):          ${summarise(resign)}`);
  console.log(`  leader crashes (key deleted at lease end -> change row): ${summarise(crash)}`);
  console.log(
    `  target p95 < 1000 ms: ${
      percentile(
        [...resign].sort((a, b) => a - b),
        95,
      ) < 1_000 &&
      percentile(
        [...crash].sort((a, b) => a - b),
        95,
      ) < 1_000
        ? "met"
        : "NOT met"
    }`,
  );
}

async function main(): Promise<void> {
  const server = await startEtcdServer({ extraArgs: ["--quota-backend-bytes", String(4 * 1024 ** 3)] });
  const database = await startTestDatabase();
  const db = createTestDb(database.url);
  try {
    const started = performance.now();
    const podLeases = await grantLeases(server, PODS, 3_600);
    await populate(server, "bench/shared/", (election, candidate) => podLeases[(election + candidate) % PODS]!);
    const ownLeases = await grantLeases(server, electionCount * CANDIDATES, 3_600);
    await populate(server, "bench/own/", (election, candidate) => ownLeases[candidate * electionCount + election]!);
    console.log(
      `etcd ${server.url}: ${electionCount} elections x ${CANDIDATES} candidates under each of two prefixes, written in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    console.log("full read of one prefix (budget 2,000 requests/s, the default):");
    await measureFullRead(server, `one session per pod (${PODS})`, "bench/shared/");
    await measureFullRead(server, "one lease per candidate", "bench/own/");
    await measureLatency(db, database.url, server, "bench/own/");
  } finally {
    await db.$disconnect();
    await database.stop();
    await stopEtcdServers([server]);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
