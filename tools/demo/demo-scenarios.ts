// What goes wrong in the demo, on a schedule: the failures the articles describe, done for
// real against the broker (no simulated stats).
import { getPartitionedStats, getTopicStats } from "@/lib/pulsar/admin-client";
import { parseStandaloneTopicName } from "@/lib/pulsar/topic-name";
import { sleep as sleepUnlessAborted } from "@/lib/sleep";
import { deploymentWindow } from "@/lib/deployments/deployment-windows";
import type { DemoSchedule } from "@/tools/demo/demo-plan";
import type { RunningService } from "@/tools/demo/demo-service";

export type ScenarioDeps = {
  deploymentGraceMs: number;
  adminUrl: string;
  baton: { url: string; token: string };
  services: Map<string, RunningService>;
  schedule: DemoSchedule;
  log: (line: string) => void;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The broker's active consumer of one partition (or of the topic when it is not partitioned). */
async function activeConsumerOf(adminUrl: string, service: RunningService, partition: number): Promise<string | null> {
  const target = { adminUrl, requestTimeoutMs: 5_000 };
  const name = parseStandaloneTopicName(service.fullTopic)!;
  if (service.plan.partitions > 1) {
    const stats = await getPartitionedStats(target, name);
    return stats.partitions[`${service.fullTopic}-partition-${partition}`]?.subscriptions[service.plan.subscription]?.activeConsumerName ?? null;
  }
  return (await getTopicStats(target, name)).subscriptions[service.plan.subscription]?.activeConsumerName ?? null;
}

async function postJson(deps: ScenarioDeps, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${deps.baton.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${deps.baton.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

function service(deps: ScenarioDeps, name: string): RunningService {
  const found = deps.services.get(name);
  if (!found) throw new Error(`no demo service ${name}`);
  return found;
}

/** A leader crashes (socket dropped, as a killed process); its pod comes back a little later. */
export async function crashLeader(deps: ScenarioDeps, serviceName: string): Promise<void> {
  const target = service(deps, serviceName);
  const leader = await activeConsumerOf(deps.adminUrl, target, 0);
  if (!leader) return;
  deps.log(`crash: ${leader}, the leader of ${serviceName} partition 0, dies; it restarts in ${deps.schedule.crashDownMs / 1000} s`);
  await target.crashWorker(leader, deps.schedule.crashDownMs);
}

let rolloutNumber = 1;

/**
 * A rolling deployment, as an orchestrator does it: for each old pod, start its replacement,
 * then stop the old one. Old and new pods overlap on the same keys while leadership moves:
 * violations inside the deployment window. Returns when that window closes, by Baton's rule
 * (lib/deployments/deployment-windows.ts: the finish plus the grace, rounded up to whole minutes).
 */
export async function rollingDeployment(deps: ScenarioDeps, serviceName: string): Promise<{ windowEndMs: number }> {
  const target = service(deps, serviceName);
  const version = `v${++rolloutNumber}`;
  const old = target.workerNames().sort();
  const startedAtMs = Date.now();
  const created = (await postJson(deps, "/api/v1/deployments", {
    service: serviceName,
    version,
    environment: "demo",
    startedAt: new Date(startedAtMs).toISOString(),
    description: `rolling deployment of ${old.length} pods`,
  })) as { id: string };
  deps.log(`deploy: ${serviceName} ${version} rolling over ${old.join(", ")}`);
  for (const [index, pod] of old.entries()) {
    await target.startWorker(`${serviceName.split("-")[0]}-${version}-${index}`);
    await sleep(deps.schedule.rollStepMs);
    await target.stopWorker(pod);
    await sleep(deps.schedule.rollStepMs);
  }
  const finishedAtMs = Date.now();
  await postJson(deps, `/api/v1/deployments/${created.id}/finish`, { finishedAt: new Date(finishedAtMs).toISOString() });
  const windowEndMs = deploymentWindow({ startedAtMs, finishedAtMs }, deps.deploymentGraceMs, Date.now()).end;
  deps.log(
    `deploy: ${serviceName} ${version} finished; its window (with ${deps.deploymentGraceMs / 1000} s of grace) closes at ${new Date(windowEndMs).toISOString()}`,
  );
  return { windowEndMs };
}

// After a stall that caught no overlap: the stalled worker reconnects and the partitions settle.
const STALL_RETRY_PAUSE_MS = 5_000;
// The broker's admin API answers the leader of a partition; while unsure, no worker is frozen.
const NO_LEADER_PAUSE_MS = 2_000;

/**
 * The GC-pause case, outside any deployment: the leader of partition 0 freezes mid-message and
 * wakes up late, after another worker took its key. A stall that caught no overlap (the worker
 * got no message, or nobody reached its key in time) is tried again, a bounded number of times.
 * The caller keeps it outside deployment windows. Resolves whether an overlap was caught.
 */
export async function stallLeader(deps: ScenarioDeps, serviceName: string, signal: AbortSignal): Promise<boolean> {
  const target = service(deps, serviceName);
  const { stallAttempts, stallMinMs, stallMaxMs } = deps.schedule;
  for (let attempt = 1; attempt <= stallAttempts && !signal.aborted; attempt++) {
    const tag = `stall (try ${attempt} of ${stallAttempts})`;
    const leader = await activeConsumerOf(deps.adminUrl, target, 0).catch(() => null);
    if (!leader || !target.workerNames().includes(leader)) {
      deps.log(`${tag}: partition 0 of ${serviceName} has no leader of the fleet right now (${leader ?? "none"})`);
      await sleepUnlessAborted(NO_LEADER_PAUSE_MS, signal);
      continue;
    }
    deps.log(
      `${tag}: ${leader} (${serviceName}) freezes in the middle of a message, for ${stallMinMs / 1000} to ${stallMaxMs / 1000} s; its partitions move meanwhile`,
    );
    const outcome = await target.stallWorker(leader, { minMs: stallMinMs, maxMs: stallMaxMs, waitForEntryMs: stallMaxMs });
    // Stopped meanwhile (Ctrl-C): the demo's last lines are its stop's own.
    if (signal.aborted) return false;
    if (outcome.isOverlap) {
      deps.log(
        `stall: ${outcome.enteredBy} entered ${outcome.key} while ${leader} was frozen inside it (${(outcome.frozenMs / 1000).toFixed(1)} s): a violation outside any deployment`,
      );
      return true;
    }
    deps.log(`${tag} caught no overlap: ${outcome.reason}`);
    await sleepUnlessAborted(STALL_RETRY_PAUSE_MS, signal);
  }
  if (!signal.aborted) deps.log(`stall: no overlap in ${stallAttempts} tries`);
  return false;
}

let isScaledUp = false;

/** A Key_Shared consumer joins or leaves: the hash ranges of every consumer move. */
export async function scaleKeyShared(deps: ScenarioDeps, serviceName: string): Promise<void> {
  const target = service(deps, serviceName);
  const extra = `${serviceName.split("-")[0]}-extra`;
  isScaledUp = !isScaledUp;
  deps.log(`scale: ${extra} ${isScaledUp ? "joins" : "leaves"} ${serviceName} (Key_Shared ranges move)`);
  if (isScaledUp) await target.startWorker(extra);
  else await target.stopWorker(extra);
}

/** Runs `action` every `everyMs` (first after `firstMs`), one at a time, until stopped. */
export function every(firstMs: number, everyMs: number, action: () => Promise<void>, log: (line: string) => void): () => void {
  let isStopped = false;
  let timer: NodeJS.Timeout;
  const tick = async () => {
    if (isStopped) return;
    // A step the stop cut short (Baton or a worker already gone) is no failure to report.
    await action().catch((error: unknown) => isStopped || log(`scenario failed: ${(error as Error).message}`));
    if (!isStopped) timer = setTimeout(tick, everyMs);
  };
  timer = setTimeout(tick, firstMs);
  return () => {
    isStopped = true;
    clearTimeout(timer);
  };
}
