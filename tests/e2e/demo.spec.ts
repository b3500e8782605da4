import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

import { expect, type Page, test } from "@playwright/test";

import { findFreePort } from "@/tools/free-port";

// `npm run demo -- --fast` end to end: its own broker, Redis masters, database, worker and web
// app, and a fleet whose crashes, rollout and stalls must show on the board, the timelines and
// the drill-downs, whose ZooKeeper and etcd elections and Patroni pair move leadership after a crash, and whose
// nightly job runs twice at once when a run overruns its ShedLock lockAtMostFor. The fast schedule is a script (a crash within seconds, a rollout, the stall
// right after the rollout's window closed, about three minutes in, then the report-scheduler's
// leader stalled past its Redis lock's TTL); the waits below poll the read API with room to spare
// for a loaded 2-core machine, and assert what happened, never how fast.
// Up to two of the fast schedule's 5-minute cycles: a lock stall Baton did not see as an expiry
// (seen once on a loaded machine) is staged again in the next cycle.
test.describe.configure({ timeout: 18 * 60_000 });
// The README's screenshots are taken at the width of a laptop's window.
test.use({ viewport: { width: 1280, height: 800 } });

// user-orchestrator's pods: version 1's, and those of the rollouts (user-v2-0, ...).
const ORCHESTRATOR_WORKER = String.raw`(?:orchestrator-\d|user-v\d+-\d)`;

type TopEntry = { name: string; violations: number; inside: number; outside: number };
type ClusterHealth = { name: string; kind: string; status: string; reason: string | null };
type LockChange = { id: string; ending: string | null; toHolder: string | null };
type KeyDrilldown = { lockChanges: LockChange[]; explanations: { eventId: string; lockChangeIds: string[] }[] };

// The report-scheduler's Redlock group in Baton (tools/demo/demo-plan.ts) and its job's key.
const LOCK_CLUSTER = "demo-locks";
const JOB_KEY = "daily-report";
/** The drill-down's story of the stall: one sched-* worker held the lock when it expired, another took it. */
const LOCK_STORY = new RegExp(
  String.raw`The lock ${LOCK_CLUSTER}/scheduler:leader expired while (sched-[abc]) held it .*; (?!\1)(sched-[abc]) acquired it .* later; \1 was still inside key ${JOB_KEY} when \2 entered`,
);

// ledger-close's nightly job (tools/demo/demo-plan.ts): Baton's database cluster on its ShedLock table, the job's row, its nodes.
const LEDGER_CLUSTER = "demo-ledger-db";
const LEDGER_KEY = "ledger/public.shedlock/close-books";
const LEDGER_NODE = /^ledger-[ab]$/;
type DoubleRun = { eventId: string; observedAt: string; key: string; worker: string; cause: string };

// The demo's elections on lock services (tools/demo/demo-plan.ts): a Curator LeaderLatch and an etcd election.
const ELECTIONS = [
  {
    cluster: "demo-zookeeper",
    key: "/demo/index-builder/leader",
    workers: /^indexer-[ab]$/,
    panel: "ZooKeeper details",
    screenshot: "demo-zookeeper-election",
  },
  { cluster: "demo-etcd", key: "elections/billing-sweeper", workers: /^sweeper-[ab]$/, panel: "etcd details", screenshot: "demo-etcd-election" },
  // orders-db's Patroni pair: the primary's host crashed, the replica was promoted once its lease ran out.
  {
    cluster: "demo-etcd",
    key: "/service/orders-db",
    workers: /^pg[01]$/,
    panel: "etcd details",
    screenshot: "demo-patroni-failover",
    endingWords: /expired: failover/,
  },
];
type ElectionChange = { kind: string; fromHolder: string | null; toHolder: string | null; ending: string | null; newSeenAt: string };
type LeadershipMove = { fromHolder: string; toHolder: string };

/**
 * A leadership move between two of the election's workers (the crashed leader's session or lease
 * ran out): one change from one to the other (a waiter queued behind the dead leader took over),
 * or the dead leader's hold ending, then the other's first hold (Patroni's leader key: nobody
 * queues, the replica creates the key once the old one is gone).
 */
function leadershipMove(changes: ElectionChange[] | undefined, workers: RegExp): LeadershipMove | null {
  const ordered = [...(changes ?? [])].sort((a, b) => Date.parse(a.newSeenAt) - Date.parse(b.newSeenAt));
  for (const [i, change] of ordered.entries()) {
    const from = change.fromHolder;
    if (from === null || !workers.test(from) || change.ending === null) continue;
    if (change.toHolder !== null && change.toHolder !== from && workers.test(change.toHolder)) return { fromHolder: from, toHolder: change.toHolder };
    const next = change.toHolder === null ? ordered.slice(i + 1).find((c) => c.toHolder !== null) : undefined;
    if (next?.toHolder && next.toHolder !== from && workers.test(next.toHolder)) return { fromHolder: from, toHolder: next.toHolder };
  }
  return null;
}

/** A violation of the job's key whose lock changes include an expiry while held and the next holder. */
function lockExpiryViolation(drilldown: KeyDrilldown | null): string | null {
  if (drilldown === null) return null;
  const changes = new Map(drilldown.lockChanges.map((c) => [c.id, c]));
  const found = drilldown.explanations.find((e) => {
    const around = e.lockChangeIds.map((id) => changes.get(id));
    return around.some((c) => c?.ending === "EXPIRED") && around.some((c) => c?.toHolder !== null && c?.toHolder !== undefined);
  });
  return found?.eventId ?? null;
}

/** What each demo printed, shown when the test fails. */
const outputs = new Map<ChildProcess, () => string>();

/** The demo a test started: stopped after the test even when the test timed out (its own finally never runs then). */
let runningDemo: ChildProcess | null = null;

test.afterEach(async () => {
  const demo = runningDemo;
  runningDemo = null;
  if (demo === null || demo.exitCode !== null || demo.signalCode !== null) return;
  process.kill(-demo.pid!, "SIGINT");
  await new Promise((resolve) => (demo.exitCode === null && demo.signalCode === null ? demo.once("exit", resolve) : resolve(undefined)));
});

function startDemo(port: number, postgresPort: number, dataDir: string): { process: ChildProcess; url: Promise<string> } {
  const args = ["--fast", "--port", String(port), "--postgres-port", String(postgresPort), "--data-dir", dataDir];
  // A process group of its own, as a terminal gives `npm run demo`: the test's Ctrl-C goes to the whole group.
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "tools/demo/run-demo.ts", ...args], {
    cwd: process.cwd(),
    env: { ...process.env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  outputs.set(child, () => output);
  runningDemo = child;
  const url = new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Baton is at (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => reject(new Error(`the demo exited (${code}) before it was up:\n${output.slice(-3000)}`)));
  });
  return { process: child, url };
}

/**
 * Processes the demo started: their command line names its data directory (its PostgreSQL and
 * broker) or their environment does (Baton's worker and web app get BATON_DATA_DIR).
 */
function processesUsing(dataDir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      const environment = readFileSync(`/proc/${pid}/environ`, "utf8");
      if (command.includes(dataDir) || environment.includes(dataDir)) found.push(`${pid} ${command.slice(0, 120)}`);
    } catch {
      // The process ended while we looked (or is not ours to read).
    }
  }
  return found;
}

async function readJson<T>(page: Page, url: string): Promise<T> {
  // A GET is safe to send again when the connection it went out on was reset.
  const response = await page.request.get(url, { maxRetries: 2 });
  expect(response.ok()).toBe(true);
  return (await response.json()) as T;
}

/** For polls: a request that fails on a busy machine (a reset connection) is read again. */
async function readJsonOrNull<T>(page: Page, url: string): Promise<T | null> {
  try {
    return await readJson<T>(page, url);
  } catch {
    return null;
  }
}

test("the demo's fleet shows on the board, the timeline and a violation drill-down", async ({ page }, testInfo) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "baton-demo-e2e-"));
  const demo = startDemo(await findFreePort(), await findFreePort(), dataDir);
  let isDone = false;
  try {
    const base = await demo.url;

    await page.goto(`${base}/`);
    await expect(page.getByRole("heading", { level: 1, name: "Leaders" })).toBeVisible();
    // The broker's active consumers of the fleet's subscriptions.
    await expect(page.getByRole("link", { name: /^scheduler-[abc]$/ }).first()).toBeVisible({ timeout: 180_000 });
    await expect(page.getByRole("link", { name: new RegExp(`^${ORCHESTRATOR_WORKER}$`) }).first()).toBeVisible({ timeout: 60_000 });
    await expect(page.getByRole("link", { name: "click-tracker" }).first()).toBeVisible({ timeout: 60_000 });

    // A crash of the daily job's leader shows as a leader change on its timeline.
    const dailyJob = new URLSearchParams({ cluster: "demo", topic: "persistent://demo/events/daily-job-ticks", subscription: "daily-job" });
    await expect
      .poll(async () => (await readJsonOrNull<{ changes: unknown[] }>(page, `${base}/api/v1/subscriptions/changes?${dailyJob}`))?.changes.length ?? 0, {
        timeout: 180_000,
        intervals: [2_000],
      })
      .toBeGreaterThan(0);
    await page.screenshot({ path: "docs/screenshots/demo-leaders.png", fullPage: true });
    await page.goto(`${base}/subscriptions?${dailyJob}`);
    // A row of the change list: a leader change between two of the daily job's schedulers.
    await expect(
      page
        .locator('tr[data-kind="HOLDER_CHANGED"]')
        .filter({ hasText: /scheduler-[abc][\s\S]*scheduler-[abc]/ })
        .first(),
    ).toBeVisible({ timeout: 60_000 });
    // The crash's successor was the one Baton named next in line just before (the Failover rule
    // without the crashed leader): the change list says so.
    await expect(
      page
        .locator('tr[data-kind="HOLDER_CHANGED"]')
        .filter({ hasText: /scheduler-[abc][\s\S]*scheduler-[abc][\s\S]*as predicted/ })
        .first(),
    ).toBeVisible({ timeout: 60_000 });
    await page.screenshot({ path: "docs/screenshots/demo-subscription.png", fullPage: true });

    // The rollout's overlaps count inside its window; the stalled worker's, after it, outside.
    await expect
      .poll(
        async () => {
          const body = await readJsonOrNull<{ services: TopEntry[] }>(page, `${base}/api/v1/violations/top?range=1h&lists=services`);
          const orchestrator = body?.services.find((s) => s.name === "user-orchestrator");
          return { inside: (orchestrator?.inside ?? 0) > 0, outside: (orchestrator?.outside ?? 0) > 0 };
        },
        { message: "user-orchestrator has violations inside and outside deployments", timeout: 6 * 60_000, intervals: [5_000] },
      )
      .toEqual({ inside: true, outside: true });
    // No range in the URL: the page opens on the range that fits what the store holds (the demo's minutes).
    await page.goto(`${base}/violations`);
    await expect(page.getByRole("heading", { level: 1, name: "Violations" })).toBeVisible();
    // The page's service list shows the split: some of user-orchestrator's violations outside, some inside.
    const orchestratorRow = page
      .getByTestId("top-services")
      .locator("tr")
      .filter({ has: page.getByRole("rowheader", { name: "user-orchestrator", exact: true }) });
    await expect(orchestratorRow.locator("td.vio-outside")).not.toHaveText("0", { timeout: 30_000 });
    await expect(orchestratorRow.locator("td.vio-inside")).not.toHaveText("0");
    // The screenshot shows the page read through: each violation's cause, the top lists, the list by cause.
    await expect(page.getByRole("list", { name: "Violations per cause" })).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId("top-keys").getByRole("link").first()).toBeVisible({ timeout: 60_000 });
    await expect(page.getByText("Loading…")).toHaveCount(0, { timeout: 60_000 });
    await page.screenshot({ path: "docs/screenshots/demo-violations.png", fullPage: true });

    // A key of user-orchestrator with a violation outside any deployment: its drill-down names the
    // two of the service's workers that were inside it at once.
    const { keys } = await readJson<{ keys: TopEntry[] }>(page, `${base}/api/v1/violations/top?range=1h&lists=keys&ranking=outside&service=user-orchestrator`);
    const key = keys.find((k) => k.outside > 0)?.name;
    expect(key, "a key of user-orchestrator with a violation outside deployments").toBeDefined();
    await page.goto(`${base}/violations/drilldown?${new URLSearchParams({ key: key! })}`);
    await expect(page.getByRole("heading", { name: `Key ${key}` })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Workers and how their entries overlapped" })).toBeVisible();
    const overlap = new RegExp(`${ORCHESTRATOR_WORKER} entered while ${ORCHESTRATOR_WORKER} was inside`);
    await expect(page.getByTestId("worker-overlaps").locator("li").filter({ hasText: overlap }).first()).toBeVisible({ timeout: 30_000 });
    // The top of the page: the verdicts (failover overlap, deployment) and the counts; the whole page is thousands of pixels of event rows.
    await page.screenshot({ path: "docs/screenshots/demo-drilldown.png" });

    // The demo's Redis masters answer and Baton's worker polls them.
    await expect
      .poll(async () => (await readJsonOrNull<{ clusters: ClusterHealth[] }>(page, `${base}/api/health`))?.clusters.find((c) => c.name === LOCK_CLUSTER), {
        message: `the ${LOCK_CLUSTER} cluster is up`,
        timeout: 60_000,
        intervals: [2_000],
      })
      .toMatchObject({ kind: "redis", status: "ok" });

    // The report-scheduler's leader stalled past its lock's TTL inside the job: the lock expired
    // while it held it, another worker took it and entered the job's key while the first was
    // still inside. Polled until Baton holds both the violation and the lock's changes around it.
    const jobKey = new URLSearchParams({ key: JOB_KEY, range: "1h" });
    let lockViolation: string | null = null;
    await expect
      .poll(async () => (lockViolation = lockExpiryViolation(await readJsonOrNull<KeyDrilldown>(page, `${base}/api/v1/violations/key?${jobKey}`))), {
        message: `a violation of ${JOB_KEY} with the lock's expiry around it`,
        timeout: 9 * 60_000,
        intervals: [5_000],
      })
      .not.toBeNull();
    await page.goto(`${base}/violations/drilldown?${jobKey}`);
    await expect(page.getByRole("heading", { name: `Key ${JOB_KEY}` })).toBeVisible();
    const explanation = page.getByRole("listitem", { name: `Violation ${lockViolation}` });
    await expect(explanation.getByText(LOCK_STORY)).toBeVisible();
    await page.screenshot({ path: "docs/screenshots/demo-lock-story.png" });

    // The JVM freeze (tools/demo/jvm-service.ts): the frozen pod, woken, enters keys from its
    // receive queue while the standby, which its partition moved to, is inside them. Those entries
    // are the stall seen from the other side (the pod had sent nothing when its partition moved),
    // never a failover overlap, which the page counts as not to act on.
    const frozenPod = /jvm freeze: the standby entered the key (payments-jvm-[ab]) was frozen inside/.exec(outputs.get(demo.process)?.() ?? "")?.[1];
    if (frozenPod !== undefined) {
      // Minutes after the freeze (the lock story above waits for a later stall): its events are in.
      const jvmCauses = new URLSearchParams({ range: "1h", service: "payments-jvm" });
      const answer = await readJson<{ violations: { worker: string; cause: string }[] }>(page, `${base}/api/v1/violations/causes?${jvmCauses}`);
      const woken = answer.violations.filter((v) => v.worker === frozenPod);
      expect(
        woken.map((v) => v.cause),
        `the causes of ${frozenPod}'s entries after it woke`,
      ).toEqual(woken.map(() => "worker-stalled"));
    }

    // ledger-close's nightly job overran its ShedLock lockAtMostFor (tools/demo/nightly-job.ts):
    // the other node started it again, and the stalled node's late unlock landed on the other's
    // hold. No counter in that service: Baton saw the double run in ShedLock's table alone.
    const ledgerCauses = new URLSearchParams({ range: "1h", service: LEDGER_CLUSTER, cause: "two-hands" });
    let doubleRun: DoubleRun | undefined;
    await expect
      .poll(
        async () =>
          (doubleRun = (await readJsonOrNull<{ violations: DoubleRun[] }>(page, `${base}/api/v1/violations/causes?${ledgerCauses}`))?.violations.find(
            (v) => v.key === LEDGER_KEY && v.cause === "two-hands",
          )),
        { message: `a double run of ${LEDGER_KEY} seen in ShedLock's table`, timeout: 6 * 60_000, intervals: [5_000] },
      )
      .toBeDefined();
    expect(doubleRun!.worker).toMatch(LEDGER_NODE);
    await page.goto(`${base}/violations/drilldown?${new URLSearchParams({ event: doubleRun!.eventId, at: doubleRun!.observedAt })}`);
    await expect(page.getByRole("heading", { name: `Key ${LEDGER_KEY}` })).toBeVisible();
    await expect(
      page
        .getByText(
          new RegExp(String.raw`${doubleRun!.worker} started ${LEDGER_KEY} while (?!${doubleRun!.worker})ledger-[ab] \(running since .*\) still ran it`),
        )
        .first(),
    ).toBeVisible({ timeout: 30_000 });
    // Both hands are the key's workers: the later node's violation and the earlier node's entry.
    await expect(page.getByTestId("drilldown-workers")).toHaveText("2");
    await page.screenshot({ path: "docs/screenshots/demo-double-run.png" });

    // The ZooKeeper and etcd elections: each leader crashed, and leadership moved to the other
    // worker once the dead one's session (ZooKeeper) or lease (etcd) ran out.
    for (const election of ELECTIONS) {
      const ref = new URLSearchParams({ cluster: election.cluster, key: election.key });
      let move: LeadershipMove | null = null;
      await expect
        .poll(
          async () =>
            (move = leadershipMove(
              (await readJsonOrNull<{ changes: ElectionChange[] }>(page, `${base}/api/v1/locks/changes?${ref}`))?.changes,
              election.workers,
            )),
          {
            message: `leadership of ${election.key} moved between two workers after a crash`,
            timeout: 4 * 60_000,
            intervals: [5_000],
          },
        )
        .not.toBeNull();
      await page.goto(`${base}/locks?${ref}&range=1h`);
      await expect(page.getByRole("heading", { level: 1, name: election.key })).toBeVisible();
      await expect(page.getByLabel(election.panel)).toBeVisible();
      const { fromHolder, toHolder } = move!;
      const rows = page.getByRole("region", { name: "Changes" }).getByRole("row");
      // The dead leader's row says how its hold ended in the system's words where the kind knows them.
      await expect(
        rows
          .filter({ hasText: fromHolder })
          .filter({ hasText: election.endingWords ?? `${toHolder} acquired it` })
          .first(),
      ).toBeVisible();
      await expect(rows.filter({ hasText: toHolder }).first()).toBeVisible();
      await page.screenshot({ path: `docs/screenshots/${election.screenshot}.png`, fullPage: true });
    }
    // The board names the Patroni cluster in its own words.
    await page.goto(`${base}/locks?${new URLSearchParams({ cluster: "demo-etcd" })}`);
    await expect(page.getByText(/Patroni cluster orders-db/).first()).toBeVisible({ timeout: 30_000 });

    // Ctrl-C, as a terminal sends it: to every process of the foreground group.
    runningDemo = null;
    process.kill(-demo.process.pid!, "SIGINT");
    // Bounded: a stop that hangs (a web server waiting on this page's connections) fails here,
    // with the demo's output below, not as the whole test's timeout.
    await expect
      .poll(() => demo.process.exitCode ?? demo.process.signalCode, { message: "the demo exits after Ctrl-C", timeout: 90_000, intervals: [500] })
      .not.toBeNull();
    // Ctrl-C stopped everything the demo started: no PostgreSQL, broker, worker or web app left.
    await expect.poll(() => processesUsing(dataDir), { timeout: 30_000 }).toEqual([]);
    // The fleet stopped before Baton: no pool error, no "dropped ... cannot reach Baton", and one closing line.
    const fullOutput = outputs.get(demo.process)?.() ?? "";
    const stopping = fullOutput.slice(fullOutput.indexOf("[demo] stopping:")).trim().split("\n");
    expect(stopping).toEqual([
      expect.stringMatching(/^\[demo\] stopping: the fleet first/),
      expect.stringMatching(/^\[demo\] stopped everything the demo started in \d+\.\d s$/),
    ]);
    isDone = true;
  } finally {
    // The demo's log (its crashes, rollout and stall) goes with the report; on failure, also here.
    // Nothing here asserts: a failure above must be the one reported.
    const output = outputs.get(demo.process)?.() ?? "";
    await testInfo.attach("demo-output", { body: output, contentType: "text/plain" });
    // (testInfo.status still says "passed" here while an error is on its way up.)
    if (!isDone) console.log(`the demo's output:\n${output.slice(-6000)}`);
    if (demo.process.exitCode === null && demo.process.signalCode === null) {
      runningDemo = null;
      process.kill(-demo.process.pid!, "SIGINT");
      const hasExited = await Promise.race([once(demo.process, "exit").then(() => true), sleep(60_000).then(() => false)]);
      if (!hasExited) process.kill(-demo.process.pid!, "SIGKILL");
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
});
