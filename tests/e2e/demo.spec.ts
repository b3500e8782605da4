import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { expect, type Page, test } from "@playwright/test";

import { findFreePort } from "@/tools/free-port";

// `npm run demo -- --fast` end to end: its own broker, database, worker and web app, and a fleet
// whose crashes, rollout and stall must show on the board, the timelines and the drill-down.
test.describe.configure({ timeout: 10 * 60_000 });

type TopEntry = { name: string; violations: number; inside: number; outside: number };

/** What each demo printed, shown when the test fails. */
const outputs = new Map<ChildProcess, () => string>();

function startDemo(port: number, postgresPort: number, dataDir: string): { process: ChildProcess; url: Promise<string> } {
  const args = ["--fast", "--port", String(port), "--postgres-port", String(postgresPort), "--data-dir", dataDir];
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "tools/demo/run-demo.ts", ...args], {
    cwd: process.cwd(),
    env: { ...process.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  outputs.set(child, () => output);
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

/** Processes whose command line names the demo's data directory (its PostgreSQL and broker). */
function processesUsing(dataDir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      if (command.includes(dataDir)) found.push(`${pid} ${command.slice(0, 120)}`);
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

async function readJson<T>(page: Page, url: string): Promise<T> {
  const response = await page.request.get(url);
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
  try {
    const base = await demo.url;

    await page.goto(`${base}/`);
    await expect(page.getByRole("heading", { level: 1, name: "Leaders" })).toBeVisible();
    // The broker's active consumers of the fleet's subscriptions.
    await expect(page.getByRole("link", { name: /^scheduler-[abc]$/ }).first()).toBeVisible({ timeout: 90_000 });
    await expect(page.getByRole("link", { name: /^orchestrator-\d$|^user-v\d-\d$/ }).first()).toBeVisible();
    await expect(page.getByRole("link", { name: "click-tracker" }).first()).toBeVisible();

    // A crash of the daily job's leader shows as a leader change on its timeline.
    const dailyJob = new URLSearchParams({ cluster: "demo", topic: "persistent://demo/events/daily-job-ticks", subscription: "daily-job" });
    await expect
      .poll(async () => (await readJsonOrNull<{ changes: unknown[] }>(page, `${base}/api/v1/subscriptions/changes?${dailyJob}`))?.changes.length ?? 0, { timeout: 120_000, intervals: [2_000] })
      .toBeGreaterThan(0);
    await page.screenshot({ path: "docs/screenshots/demo-leaders.png", fullPage: true });
    await page.goto(`${base}/subscriptions?${dailyJob}`);
    // A row of the change list: a leader change between two of the daily job's schedulers.
    await expect(page.locator('tr[data-kind="HOLDER_CHANGED"]').filter({ hasText: /scheduler-[abc][\s\S]*scheduler-[abc]/ }).first()).toBeVisible({ timeout: 30_000 });
    await page.screenshot({ path: "docs/screenshots/demo-subscription.png", fullPage: true });

    // The rollout's overlaps count inside its window; the stalled worker's, after it, outside.
    await expect
      .poll(
        async () => {
          const body = await readJsonOrNull<{ services: TopEntry[] }>(page, `${base}/api/v1/violations/top?range=1h&lists=services,keys`);
          const orchestrator = body?.services.find((s) => s.name === "user-orchestrator");
          return orchestrator ? orchestrator.inside > 0 && orchestrator.outside > 0 : false;
        },
        { timeout: 240_000, intervals: [5_000] },
      )
      .toBe(true);
    await page.goto(`${base}/violations?range=1h`);
    await expect(page.getByRole("heading", { level: 1, name: "Violations" })).toBeVisible();
    await expect(page.locator("main").getByText("user-orchestrator", { exact: true }).filter({ visible: true }).first()).toBeVisible();
    await page.screenshot({ path: "docs/screenshots/demo-violations.png", fullPage: true });

    const { keys } = await readJson<{ keys: TopEntry[] }>(page, `${base}/api/v1/violations/top?range=1h&lists=keys&ranking=outside&service=user-orchestrator`);
    const key = keys.find((k) => k.outside > 0)!.name;
    await page.goto(`${base}/violations/drilldown?${new URLSearchParams({ key, range: "1h" })}`);
    await expect(page.getByRole("heading", { name: `Key ${key}` })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Workers and how their entries overlapped" })).toBeVisible();
    // Two of the fleet's workers were inside the key at once.
    await expect(page.getByText(/entered while .* was inside/).first()).toBeVisible();
    await page.screenshot({ path: "docs/screenshots/demo-drilldown.png", fullPage: true });
  } finally {
    if (testInfo.status !== testInfo.expectedStatus) console.log(`the demo's output:\n${outputs.get(demo.process)?.().slice(-4000)}`);
    demo.process.kill("SIGINT");
    await new Promise((resolve) => (demo.process.exitCode === null ? demo.process.once("exit", resolve) : resolve(undefined)));
    // Ctrl-C stopped everything the demo started: no PostgreSQL, no broker left on its data.
    expect(processesUsing(dataDir)).toEqual([]);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
