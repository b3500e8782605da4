import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { expect, type Page, test } from "@playwright/test";

import { findFreePort } from "@/tools/free-port";

// The demo's real incidents, each with its own cause (README, "Violation causes"): the
// user-orchestrator worker frozen mid-message until another took its key (worker stalled while
// another took its key), the report-scheduler's leader frozen past its Redis lock's TTL (holder
// stalled past its lock's TTL), and the routine handovers of crashes and Key_Shared scaling
// (failover overlap). `npm run demo -- --fast` end to end; the waits poll the read API with room
// to spare for a loaded 2-core machine and assert what happened, never how fast.
test.describe.configure({ timeout: 20 * 60_000 });

type Cause = "rollout" | "holder-stalled" | "worker-stalled" | "failover-overlap" | "unexplained";
type Classified = { eventId: string; key: string; service: string; worker: string; observedAt: string; cause: Cause };
type Causes = { counts: Record<Cause, number>; violations: Classified[] };

const JOB_KEY = "daily-report";

function startDemo(port: number, postgresPort: number, dataDir: string): { process: ChildProcess; url: Promise<string>; output: () => string } {
  const args = ["--fast", "--port", String(port), "--postgres-port", String(postgresPort), "--data-dir", dataDir];
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "tools/demo/run-demo.ts", ...args], { cwd: process.cwd(), env: { ...process.env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const url = new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Baton is at (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => reject(new Error(`the demo exited (${code}) before it was up:\n${output.slice(-3000)}`)));
  });
  return { process: child, url, output: () => output };
}

/** For polls: a request that fails on a busy machine (a reset connection) is read again. */
async function readCauses(page: Page, url: string): Promise<Causes | null> {
  try {
    const response = await page.request.get(url);
    return response.ok() ? ((await response.json()) as Causes) : null;
  } catch {
    return null;
  }
}

/** The drill-down of one violation: its explanation carries the cause the list gave it. */
async function expectDrilldownCause(page: Page, base: string, violation: Classified, cause: Cause, label: string): Promise<void> {
  await page.goto(`${base}/violations/drilldown?${new URLSearchParams({ event: violation.eventId, at: violation.observedAt })}`);
  await expect(page.getByRole("heading", { level: 1, name: `Key ${violation.key} · ${violation.service}` })).toBeVisible();
  const explanation = page.getByRole("listitem", { name: `Violation ${violation.eventId}` });
  await expect(explanation).toHaveAttribute("data-cause", cause);
  await expect(explanation.getByTestId("violation-cause")).toHaveText(label);
}

test("the demo's stalled lock holder, stalled worker and failovers each carry their own cause", async ({ page }, testInfo) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "baton-demo-causes-"));
  const demo = startDemo(await findFreePort(), await findFreePort(), dataDir);
  let last: Causes | null = null;
  try {
    const base = await demo.url;
    const causesUrl = `${base}/api/v1/violations/causes?range=1h&limit=5000`;
    const find = (cause: Cause, where: (v: Classified) => boolean = () => true) => last?.violations.find((v) => v.cause === cause && where(v)) ?? null;

    // The orchestrator's stall (about three minutes in), then the scheduler's lock stall; failovers all along.
    await expect
      .poll(
        async () => {
          last = (await readCauses(page, causesUrl)) ?? last;
          return {
            workerStalled: find("worker-stalled", (v) => v.service === "user-orchestrator") !== null,
            holderStalled: find("holder-stalled", (v) => v.key === JOB_KEY) !== null,
            failover: find("failover-overlap") !== null,
          };
        },
        { message: "a worker-stalled, a holder-stalled and a failover-overlap violation", timeout: 15 * 60_000, intervals: [10_000] },
      )
      .toEqual({ workerStalled: true, holderStalled: true, failover: true });
    const counts = last!.counts;
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(last!.violations.length);

    await expectDrilldownCause(page, base, find("worker-stalled", (v) => v.service === "user-orchestrator")!, "worker-stalled", "Worker stalled while another took its key");
    await expectDrilldownCause(page, base, find("failover-overlap")!, "failover-overlap", "Failover overlap");
    const lockViolation = find("holder-stalled", (v) => v.key === JOB_KEY)!;
    await expectDrilldownCause(page, base, lockViolation, "holder-stalled", "Holder stalled past its lock's TTL");
    // The lock's story is one click from the violation it explains.
    await page.getByRole("listitem", { name: `Violation ${lockViolation.eventId}` }).getByTestId("lock-story-link").click();
    await expect(page.getByRole("heading", { level: 1, name: "scheduler:leader" })).toBeVisible();

    // The violations page leads with the causes, named as the list names them.
    await page.goto(`${base}/violations?range=1h`);
    await expect(page.getByTestId("cause-count-worker-stalled")).not.toHaveText("0");
    await expect(page.getByTestId("cause-count-holder-stalled")).not.toHaveText("0");
    await expect(page.getByTestId("cause-list")).not.toContainText("alarming");
    await page.screenshot({ path: "docs/screenshots/demo-violation-causes.png", fullPage: true });

    // The busiest key's drill-down, measured: one sentence of cause, then paged violations and events.
    const busiest = [...last!.violations.reduce((m, v) => m.set(v.key, (m.get(v.key) ?? 0) + 1), new Map<string, number>())].sort((a, b) => b[1] - a[1])[0]!;
    await page.goto(`${base}/violations/drilldown?${new URLSearchParams({ key: busiest[0], range: "1h" })}`);
    await expect(page.getByTestId("drilldown-causes")).toContainText("violation");
    await expect(page.getByTestId("event-table")).toBeVisible();
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.screenshot({ path: "docs/screenshots/demo-drilldown-busy-key.png", fullPage: true });
    testInfo.annotations.push({ type: "drill-down height", description: `${busiest[0]} (${busiest[1]} violations): ${height} px` });
    console.log(`drill-down of the busiest key ${busiest[0]} (${busiest[1]} violations in the page): ${height} px tall; causes ${JSON.stringify(counts)}`);
  } finally {
    if (last !== null) writeFileSync(testInfo.outputPath("causes.json"), JSON.stringify(last, null, 1));
    await testInfo.attach("demo-output", { body: demo.output(), contentType: "text/plain" });
    if (testInfo.status !== testInfo.expectedStatus) console.log(`the demo's output:\n${demo.output().slice(-6000)}\ncauses: ${JSON.stringify((last as Causes | null)?.counts ?? null)}`);
    demo.process.kill("SIGINT");
    await new Promise((resolve) => (demo.process.exitCode === null ? demo.process.once("exit", resolve) : resolve(undefined)));
    rmSync(dataDir, { recursive: true, force: true });
  }
});
