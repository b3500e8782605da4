// Seeds a cluster's leaders the way the poller writes them (saveCycle: the same statements, the
// same JSON), for the board and timeline benchmarks and for looking at a large board by hand.
import type { Db } from "@/lib/db/client";
import type { DetectedChange } from "@/lib/poller/change";
import type { BacklogSample, ConsumerObservation, ResourceState } from "@/lib/poller/contract/partition-state";
import { saveCycle } from "@/lib/poller/resource-store";
import type { HashRange } from "@/lib/poller/contract/hash-range-split";

export type SeedOptions = {
  cluster: string;
  /** Subscription partitions in all (topics x partitions x 1 subscription each). */
  resources: number;
  partitionsPerTopic: number;
  /** Holder changes spread over the last 7 days, and how many of them fall in the last 10 minutes. */
  changes: number;
  recentChanges: number;
  /** Every subscription of this type (default: a mix of Failover, Exclusive and Key_Shared). */
  subscriptionType?: "Failover" | "Exclusive" | "Key_Shared";
  /** Prefix of tenant names, so that several seeded clusters do not share topics. */
  tenantPrefix?: string;
  nowMs?: number;
};

const HASH_SPACE = 65_536;

/** A deterministic pseudo-random sequence (the same seed gives the same board). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function consumer(name: string, connectedSince: string, rand: () => number): ConsumerObservation {
  return {
    name,
    connectedSince,
    msgRateOut: Math.round(rand() * 500) / 10,
    availablePermits: 1000,
    unackedMessages: Math.floor(rand() * 20),
    lastConsumedAt: Date.parse(connectedSince) + 1000,
    address: `/10.1.${Math.floor(rand() * 255)}.${Math.floor(rand() * 255)}:${40000 + Math.floor(rand() * 20000)}`,
    clientVersion: "Pulsar-Java-v4.2.4",
  };
}

/** Key_Shared-like ranges: `count` ranges over the space, dealt round-robin to the consumers (4.x gives each consumer 54-82). */
function hashRanges(names: string[], count: number): { consumer: string; ranges: HashRange[] }[] {
  const step = Math.floor(HASH_SPACE / count);
  const split = names.map((name) => ({ consumer: name, ranges: [] as HashRange[] }));
  for (let i = 0; i < count; i++) split[i % names.length]!.ranges.push([i * step, i === count - 1 ? HASH_SPACE - 1 : (i + 1) * step - 1]);
  return split;
}

export async function seedBoard(db: Db, options: SeedOptions): Promise<{ clusterId: number; topics: string[] }> {
  const nowMs = options.nowMs ?? Date.now();
  const rand = random(42);
  const { id: clusterId } = await db.cluster.upsert({
    where: { name: options.cluster },
    create: { name: options.cluster, adminUrl: "http://127.0.0.1:49151", pollIntervalMs: 5000 },
    update: {},
    select: { id: true },
  });
  await db.pollerLease.upsert({
    where: { clusterId },
    create: { clusterId, epoch: 1n, pollerId: "bench", acquiredAt: new Date(nowMs), heartbeatAt: new Date(nowMs) },
    update: { epoch: 1n },
  });

  const states: ResourceState[] = [];
  const topics: string[] = [];
  const at = new Date(nowMs - 1_000).toISOString();
  let topicCount = 0;
  for (let t = 0; states.length < options.resources; t++) {
    topicCount++;
    const tenant = `${options.tenantPrefix ?? "tenant"}-${t % 7}`;
    const namespace = `${tenant}/ns-${t % 23}`;
    const topic = `persistent://${namespace}/events-${t}`;
    topics.push(topic);
    const kind = rand();
    const type = options.subscriptionType ?? (kind < 0.1 ? "Key_Shared" : kind < 0.25 ? "Exclusive" : "Failover");
    const partitions = type === "Exclusive" ? 1 : options.partitionsPerTopic;
    const names = Array.from({ length: type === "Exclusive" ? 2 : 3 }, (_, i) => `svc-${t}-worker-${i}`);
    const connectedSince = new Date(nowMs - Math.floor(rand() * 86_400_000)).toISOString();
    const consumers = names.map((name) => consumer(name, connectedSince, rand));
    for (let p = 0; p < partitions && states.length < options.resources; p++) {
      const roll = rand();
      const holder = type === "Key_Shared" || roll < 0.02 ? null : names[p % names.length]!;
      const growing = roll > 0.98;
      const samples: BacklogSample[] = Array.from({ length: 12 }, (_, i) => ({
        at: new Date(nowMs - (12 - i) * 5_000).toISOString(),
        backlog: growing ? 1000 + i * 250 : 20 + (i % 2),
        msgRateOut: growing ? 0 : 12.5,
        holder,
      }));
      states.push({
        resourceKey: `${topic}|sub-${t}|${partitions > 1 ? p : -1}`,
        topic,
        tenant,
        namespace,
        partition: partitions > 1 ? p : -1,
        subscription: `sub-${t}`,
        subscriptionType: type,
        isDurable: true,
        holder,
        consumers: roll < 0.01 ? [] : consumers,
        hashRanges: type === "Key_Shared" ? { space: HASH_SPACE, consumers: hashRanges(names, 60 * names.length) } : null,
        backlog: samples[samples.length - 1]!.backlog,
        msgRateOut: 12.5,
        holderSince: connectedSince,
        lastObservedAt: at,
        staleSince: roll > 0.005 && roll < 0.015 ? new Date(nowMs - 45_000).toISOString() : null,
        lastError: roll > 0.005 && roll < 0.015 ? "cannot reach 10.0.0.7:8080: ECONNREFUSED" : null,
        lastErrorAt: null,
        goneAt: null,
        lastChangeAt: new Date(nowMs - Math.floor(rand() * 7 * 86_400_000)).toISOString(),
        recentSamples: samples,
      });
    }
  }

  const changes: DetectedChange[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < options.changes; i++) {
    const state = states[Math.floor(rand() * states.length)]!;
    const isRecent = i < options.recentChanges;
    const ms = isRecent ? nowMs - Math.floor(rand() * 590_000) : nowMs - Math.floor(rand() * 7 * 86_400_000);
    const newSeenAt = new Date(ms).toISOString();
    const key = `${state.resourceKey}|${newSeenAt}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const names = state.consumers.map((c) => c.name);
    changes.push({
      resourceKey: state.resourceKey,
      kind: "HOLDER_CHANGED",
      cause: "CLIENT",
      fromHolder: names[0] ?? "gone-worker",
      toHolder: names[1] ?? "new-worker",
      oldSeenAt: new Date(ms - 5_000).toISOString(),
      newSeenAt,
      isDuringGap: false,
      details: { consumersBefore: names, consumersAfter: names, added: [], removed: [], reconnected: [] },
    });
  }

  await saveCycle(db, {
    clusterId,
    epoch: 1n,
    states: { shape: "subscription-partition", states },
    // Each seeded row keeps its own observation time.
    isFullSweep: false,
    changes,
    pollRun: {
      startedAt: new Date(nowMs - 2_000).toISOString(),
      finishedAt: new Date(nowMs - 1_000).toISOString(),
      cycleMs: 5_000,
      topicCount,
      requestCount: topicCount,
      errors: [],
      pollerId: "bench",
    },
  });
  // As if Baton had watched them for longer than the changes go back.
  await db.heldResource.updateMany({ where: { clusterId }, data: { firstSeenAt: new Date(nowMs - 8 * 86_400_000) } });
  // Planner statistics, as autovacuum would have gathered them on a database in use.
  await db.$executeRaw`analyze held_resource`;
  await db.$executeRaw`analyze holder_change`;
  return { clusterId, topics };
}
