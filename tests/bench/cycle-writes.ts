// Benchmark: rows written per poll cycle, before and after "write only what changed", against a
// real (embedded) PostgreSQL. A cluster of N subscription partitions (a third Key_Shared with
// their hash ranges) goes through cycles in which a few holders change and a share of the
// resources is busy (backlog, rates and samples move on every cycle); the save path is fed the
// states a cycle makes, as the poller feeds it.
//
// Prints per cycle, for the old path (every touched row written, each with its last observation)
// and the new one (rows that changed, the sweep's time once per cycle): rows written to
// held_resource and to every table (pg_stat_user_tables n_tup_ins + n_tup_upd deltas), WAL bytes,
// and the save's time; with the changes and resources per cycle, and the load average. First,
// the poller's memory for those states: the states a cycle keeps, and what WrittenRows (the
// signatures of the rows as written) adds.
//
// Run: flock /tmp/baton-bench.lock npm run bench:cycle-writes [-- --resources 10000 --changes 5 --busy 0.2 --cycles 24 --cycle-seconds 5]
import os from "node:os";
import { parseArgs } from "node:util";

import { PrismaPg } from "@prisma/adapter-pg";

import { PrismaClient } from "@/lib/db/generated/client";
import type { DetectedChange } from "@/lib/poller/change";
import { saveCycle } from "@/lib/poller/resource-store";
import { WrittenRows } from "@/lib/poller/written-rows";
import type { HashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import { MAX_RECENT_SAMPLES, type ConsumerObservation, type ResourceState } from "@/lib/poller/contract/partition-state";
import { startTestDatabase } from "@/tests/support/test-database";
import { observation, stateFrom } from "@/tests/unit/sources/pulsar/builders";

const { values } = parseArgs({
  options: {
    resources: { type: "string", default: "10000" },
    changes: { type: "string", default: "5" },
    busy: { type: "string", default: "0.2" },
    cycles: { type: "string", default: "24" },
    "cycle-seconds": { type: "string", default: "5" },
  },
});
const RESOURCES = Number(values.resources);
const CHANGES = Number(values.changes);
const BUSY = Number(values.busy);
const CYCLES = Number(values.cycles);
const CYCLE_MS = Number(values["cycle-seconds"]) * 1000;
const PARTITIONS = 4;
const START_MS = Date.now() - (CYCLES + 2) * CYCLE_MS;

type Db = PrismaClient;

/** A deterministic pseudo-random sequence: both paths see the same cycles. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function consumerOf(name: string, rate: number): ConsumerObservation {
  return {
    name,
    connectedSince: "2026-11-20T08:00:00.000Z",
    msgRateOut: rate,
    availablePermits: 1000,
    unackedMessages: 0,
    lastConsumedAt: null,
    address: `/10.1.0.${name.length}:41000`,
    clientVersion: "Pulsar-Java-v4.2.4",
  };
}

function splitOf(names: string[]): HashRangeSplit {
  // 4.x gives each of 3 consumers about 65 ranges over 0..65535.
  const count = 195;
  const step = Math.floor(65_536 / count);
  const consumers = names.map((consumer) => ({ consumer, ranges: [] as [number, number][] }));
  for (let i = 0; i < count; i++) consumers[i % names.length]!.ranges.push([i * step, i === count - 1 ? 65_535 : (i + 1) * step - 1]);
  return { space: 65_536, consumers };
}

function initialStates(): ResourceState[] {
  const at = new Date(START_MS).toISOString();
  const names = ["w1", "w2", "w3"];
  return Array.from({ length: RESOURCES }, (_, i) => {
    const topicIndex = Math.floor(i / PARTITIONS);
    const partition = i % PARTITIONS;
    const isKeyShared = topicIndex % 3 === 2;
    const topic = `persistent://bench/writes/t${topicIndex}`;
    const observed = observation({
      topic,
      tenant: "bench",
      namespace: "bench/writes",
      partition,
      subscription: "workers",
      subscriptionType: isKeyShared ? "Key_Shared" : "Failover",
      holder: isKeyShared ? null : names[partition % 3]!,
      consumers: names.map((n) => consumerOf(n, 0)),
      hashRanges: isKeyShared ? splitOf(names) : null,
      msgRateOut: 0,
    });
    return stateFrom(observed, at);
  });
}

/** The next cycle: every state observed again; the busy ones' figures moved; a few holders changed. */
function nextCycle(previous: ResourceState[], cycle: number, rand: () => number): { states: ResourceState[]; changes: DetectedChange[] } {
  const at = new Date(START_MS + cycle * CYCLE_MS).toISOString();
  const busyCount = Math.round(RESOURCES * BUSY);
  const changed = new Set<number>();
  while (changed.size < CHANGES) {
    const i = Math.floor(rand() * RESOURCES);
    if (previous[i]!.subscriptionType === "Failover") changed.add(i);
  }
  const changes: DetectedChange[] = [];
  const states = previous.map((prev, i) => {
    let next: ResourceState = { ...prev, lastObservedAt: at };
    if (i < busyCount) {
      const backlog = (prev.backlog ?? 0) + 1 + Math.floor(rand() * 100);
      const rate = Math.round(rand() * 5000) / 10;
      next = {
        ...next,
        backlog,
        msgRateOut: rate,
        consumers: prev.consumers.map((c) => ({ ...c, msgRateOut: c.name === prev.holder ? rate : 0, unackedMessages: Math.floor(rand() * 50) })),
        recentSamples: [...prev.recentSamples, { at, backlog, msgRateOut: rate, holder: prev.holder }].slice(-MAX_RECENT_SAMPLES),
      };
    }
    if (changed.has(i)) {
      const toHolder = prev.holder === "w1" ? "w2" : "w1";
      changes.push({
        resourceKey: prev.resourceKey,
        kind: "HOLDER_CHANGED",
        cause: "CLIENT",
        fromHolder: prev.holder,
        toHolder,
        oldSeenAt: prev.lastObservedAt,
        newSeenAt: at,
        isDuringGap: false,
        details: {},
      });
      next = { ...next, holder: toHolder, holderSince: at, lastChangeAt: at };
    }
    return next;
  });
  return { states, changes };
}

type Counters = { heldRows: number; allRows: number; walBytes: number };

/** The write counters, on the connection that writes: flushed from this backend first, then read afresh. */
async function readCounters(db: Db): Promise<Counters> {
  await db.$queryRaw`select pg_stat_force_next_flush()::text`;
  await db.$queryRaw`select pg_stat_clear_snapshot()::text`;
  const [row] = await db.$queryRaw<{ held: bigint; all: bigint; wal: string }[]>`
    select coalesce(sum(n_tup_ins + n_tup_upd) filter (where relname = 'held_resource'), 0)::bigint as held,
      coalesce(sum(n_tup_ins + n_tup_upd), 0)::bigint as all, pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as wal
    from pg_stat_user_tables`;
  return { heldRows: Number(row!.held), allRows: Number(row!.all), walBytes: Number(row!.wal) };
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

async function runPath(db: Db, label: string, isChangedOnly: boolean): Promise<void> {
  const { id: clusterId } = await db.cluster.create({
    data: { name: `writes-${isChangedOnly ? "after" : "before"}`, adminUrl: "http://127.0.0.1:9", pollIntervalMs: CYCLE_MS },
    select: { id: true },
  });
  const now = new Date();
  await db.pollerLease.create({ data: { clusterId, epoch: 1n, pollerId: "bench", acquiredAt: now, heartbeatAt: now }, select: { clusterId: true } });
  const written = isChangedOnly ? new WrittenRows() : undefined;
  const rand = random(7);
  let states = initialStates();
  const save = (cycle: number, changes: DetectedChange[]) =>
    saveCycle(db, {
      clusterId,
      epoch: 1n,
      states: { shape: "subscription-partition", states },
      isFullSweep: isChangedOnly,
      written,
      changes,
      pollRun: {
        startedAt: new Date(START_MS + cycle * CYCLE_MS).toISOString(),
        finishedAt: new Date(START_MS + cycle * CYCLE_MS + 500).toISOString(),
        cycleMs: CYCLE_MS,
        topicCount: RESOURCES / PARTITIONS,
        requestCount: RESOURCES / PARTITIONS,
        errors: [],
        pollerId: "bench",
      },
    });
  await save(0, []); // the first cycle writes every row on both paths
  const held: number[] = [];
  const all: number[] = [];
  const wal: number[] = [];
  const saveMs: number[] = [];
  let changeCount = 0;
  for (let cycle = 1; cycle <= CYCLES; cycle++) {
    const next = nextCycle(states, cycle, rand);
    states = next.states;
    changeCount += next.changes.length;
    const before = await readCounters(db);
    const start = performance.now();
    await save(cycle, next.changes);
    saveMs.push(performance.now() - start);
    const after = await readCounters(db);
    held.push(after.heldRows - before.heldRows);
    all.push(after.allRows - before.allRows);
    wal.push(after.walBytes - before.walBytes);
  }
  console.log(
    `${label}: per cycle ${(changeCount / CYCLES).toFixed(0)} holder changes among ${RESOURCES} resources (${Math.round(RESOURCES * BUSY)} busy); ` +
      `held_resource rows written mean ${mean(held).toFixed(1)} (median ${quantile(held, 0.5)}, max ${Math.max(...held)}); ` +
      `rows written in all tables mean ${mean(all).toFixed(1)}; WAL ${(mean(wal) / 1024).toFixed(0)} KiB; ` +
      `save median ${quantile(saveMs, 0.5).toFixed(1)} ms, p95 ${quantile(saveMs, 0.95).toFixed(1)} ms; load average ${os.loadavg()[0]!.toFixed(2)} on ${os.cpus().length} cores`,
  );
}

function heapMb(): number {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

/** The heap the states take, and what the WrittenRows of their rows adds. */
function measureMemory(): void {
  const before = heapMb();
  const states = initialStates();
  for (let cycle = 1; cycle <= 12; cycle++) {
    // Full samples and figures on every state: the largest a state gets.
    for (const [i, state] of states.entries()) {
      const at = new Date(START_MS + cycle * CYCLE_MS).toISOString();
      states[i] = {
        ...state,
        backlog: cycle * 1000 + i,
        recentSamples: [...state.recentSamples, { at, backlog: cycle, msgRateOut: 1.5, holder: state.holder }].slice(-MAX_RECENT_SAMPLES),
      };
    }
  }
  const withStates = heapMb();
  const written = new WrittenRows();
  written.remember({ shape: "subscription-partition", states });
  const withWritten = heapMb();
  console.log(
    `memory: ${RESOURCES} states with ${MAX_RECENT_SAMPLES} samples each ${(withStates - before).toFixed(1)} MB of heap; the WrittenRows of their ${written.size} rows ${(withWritten - withStates).toFixed(1)} MB more`,
  );
}

async function main(): Promise<void> {
  measureMemory();
  console.log(
    `cycle writes: ${RESOURCES} subscription partitions, ${CHANGES} holder changes and ${(BUSY * 100).toFixed(0)}% busy resources per cycle, ${CYCLES} cycles of ${CYCLE_MS / 1000} s (synthetic clock)`,
  );
  const database = await startTestDatabase();
  // One connection: the write counters are flushed from, and read on, the backend that writes.
  const db = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url, max: 1 }) });
  try {
    await runPath(db, "every row (before)", false);
    await runPath(db, "changed rows only (after)", true);
  } finally {
    await db.$disconnect();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
