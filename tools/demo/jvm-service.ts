// The demo's JVM service: real Java consumers (the Java client's test kit ConsumerWorker, one
// JVM per pod, the official Pulsar client) on a Failover subscription, each instrumented with
// BatonExclusivityInterceptor, counting in the same Redis and reporting to the same Baton as the
// Node services. Its failure is the GC pause done for real: the active pod's JVM is stopped
// (SIGSTOP) in the middle of its messages; the demo's broker, hearing no answer to its keep-alive
// pings, drops the connection and hands the partition, with the unacknowledged message in hand,
// to the standby, which enters that key while the frozen pod is still inside: a violation naming
// both. Woken (SIGCONT), the pod finishes late, leaves and reconnects.
import { randomUUID } from "node:crypto";

import { getTopicStats } from "@/lib/pulsar/admin-client";
import { parseStandaloneTopicName } from "@/lib/pulsar/topic-name";
import { sleep } from "@/lib/sleep";
import { ensureJavaClientBuilt, startJavaWorker, type JavaWorker } from "@/tests/support/java-exclusivity-worker";
import type { DemoService } from "@/tools/demo/demo-plan";
import type { FleetConnection } from "@/tools/fleet/fleet-consumer";
import { makeKeys, openKeyedProducer } from "@/tools/fleet/keyed-producer";

export type RunningJvmService = {
  plan: DemoService;
  /** Freezes the active pod's JVM for `frozenMs`, a bounded number of tries until an overlap was counted; resolves whether one was. */
  freezeLeader(frozenMs: number, attempts: number, signal: AbortSignal): Promise<boolean>;
  /** Wakes a frozen pod, closes every pod (its last events reach Baton), and stops producing. */
  close(): Promise<void>;
};

export type JvmServiceDeps = {
  adminUrl: string;
  serviceUrl: string;
  connection: FleetConnection;
  baton: { url: string; token: string };
  counterKeyPrefix: string;
  namespace: string;
  log: (line: string) => void;
};

/** A pod that does not close within this is killed: longer than the client's own bounded close (10 s, plus a request in flight). */
const CLOSE_WAIT_MS = 25_000;
const STATS_WAIT_MS = 10_000;
/** After a wake-up: the standby's entry has reached Redis and its event the counter's stats. */
const SETTLE_MS = 3_000;
const RETRY_PAUSE_MS = 5_000;

function sleepMs(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The pod's violations so far, from a fresh "stats" answer (not an earlier one). */
async function violationsOf(worker: JavaWorker): Promise<number> {
  const before = worker.lines().length;
  worker.send("stats");
  const deadline = Date.now() + STATS_WAIT_MS;
  while (Date.now() < deadline) {
    const line = worker
      .lines()
      .slice(before)
      .find((seen) => seen.kind === "stats");
    if (line) return line.rest === "null" ? 0 : (JSON.parse(line.rest) as { violations: number }).violations;
    await sleepMs(50);
  }
  throw new Error(`${worker.name} did not answer "stats" within ${STATS_WAIT_MS / 1000} s`);
}

/**
 * Starts the JVM service's pods, or, when Java or Maven is missing or the client does not build,
 * says so in one line and answers null (the demo runs without it). The client is built once and
 * reused while its sources are unchanged.
 */
export async function startJvmService(plan: DemoService, deps: JvmServiceDeps): Promise<RunningJvmService | null> {
  try {
    await ensureJavaClientBuilt({ log: deps.log });
  } catch (error) {
    deps.log(`${plan.service} (the JVM service) does not run: ${(error as Error).message.split("\n")[0]}`);
    return null;
  }
  const topic = `persistent://${deps.namespace}/${plan.topic}`;
  const pods = new Map<string, JavaWorker>();
  const frozen = new Set<string>();
  try {
    // The JVMs start side by side (seconds each on a busy machine), then subscribe in order.
    const started = await Promise.allSettled(
      plan.workers.map((name) =>
        startJavaWorker({
          name,
          serviceUrl: deps.serviceUrl,
          topic,
          subscription: plan.subscription,
          type: plan.subscriptionType,
          batonUrl: deps.baton.url,
          token: deps.baton.token,
          keyPrefix: deps.counterKeyPrefix,
          service: plan.service,
          processMs: plan.processingMs[0],
          processMaxMs: plan.processingMs[1],
          receiverQueue: 20,
          flushIntervalMs: 500,
        }),
      ),
    );
    for (const result of started) if (result.status === "fulfilled") pods.set(result.value.name, result.value);
    const failed = started.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
    for (const pod of pods.values()) await pod.subscribe();
  } catch (error) {
    await Promise.all([...pods.values()].map((pod) => pod.kill()));
    deps.log(`${plan.service} (the JVM service) does not run: ${(error as Error).message.split("\n")[0]}`);
    return null;
  }
  const producer = await openKeyedProducer(deps.connection, {
    topic,
    keys: makeKeys(plan.keys, plan.keyPrefix),
    payload: (sequence, key) => JSON.stringify({ sequence, key, traceId: randomUUID() }),
  });
  producer.startRate(plan.ratePerSecond);
  deps.log(`${plan.service}: JVM pods ${plan.workers.join(", ")} consume ${topic} (${plan.subscriptionType}) through BatonExclusivityInterceptor`);

  async function activePod(): Promise<string | null> {
    const stats = await getTopicStats({ adminUrl: deps.adminUrl, requestTimeoutMs: 5_000 }, parseStandaloneTopicName(topic)!);
    return stats.subscriptions[plan.subscription]?.activeConsumerName ?? null;
  }

  async function othersViolations(leader: string): Promise<number> {
    const counts = await Promise.all([...pods].filter(([name]) => name !== leader).map(([, pod]) => violationsOf(pod)));
    return counts.reduce((sum, count) => sum + count, 0);
  }

  return {
    plan,
    async freezeLeader(frozenMs, attempts, signal) {
      for (let attempt = 1; attempt <= attempts && !signal.aborted; attempt++) {
        const tag = `jvm freeze (try ${attempt} of ${attempts})`;
        const leader = await activePod().catch(() => null);
        if (signal.aborted) return false;
        const pod = leader === null ? undefined : pods.get(leader);
        if (!pod || leader === null) {
          deps.log(`${tag}: ${plan.service} has no active JVM pod right now (${leader ?? "none"})`);
          await sleep(RETRY_PAUSE_MS, signal);
          continue;
        }
        const before = await othersViolations(leader);
        if (signal.aborted) return false;
        deps.log(
          `${tag}: ${leader} (${plan.service}) is stopped with SIGSTOP for ${frozenMs / 1000} s, a GC pause of the whole JVM; the broker drops it after its keep-alive goes unanswered`,
        );
        frozen.add(leader);
        pod.signal("SIGSTOP");
        await sleep(frozenMs, signal);
        pod.signal("SIGCONT");
        frozen.delete(leader);
        if (signal.aborted) return false;
        await sleep(SETTLE_MS, signal);
        const caught = (await othersViolations(leader)) - before;
        // Stopped meanwhile (Ctrl-C): the demo's last lines are its stop's own.
        if (signal.aborted) return false;
        if (caught > 0) {
          deps.log(
            `jvm freeze: the standby entered the key ${leader} was frozen inside (${caught} violation(s) counted); ${leader} woke, finished late and left`,
          );
          return true;
        }
        deps.log(`${tag} caught no overlap: ${leader} was between messages when it froze`);
        await sleep(RETRY_PAUSE_MS, signal);
      }
      if (!signal.aborted) deps.log(`jvm freeze: no overlap in ${attempts} tries`);
      return false;
    },
    async close() {
      await producer.close();
      await Promise.all(
        [...pods.values()].map(async (pod) => {
          if (frozen.has(pod.name)) pod.signal("SIGCONT");
          const closing = pod.close().then(
            () => true,
            () => false,
          );
          const closed = await Promise.race([closing, sleepMs(CLOSE_WAIT_MS).then(() => false)]);
          if (!closed) {
            deps.log(`${pod.name} did not close within ${CLOSE_WAIT_MS / 1000} s: killed`);
            await pod.kill();
          }
        }),
      );
    },
  };
}
