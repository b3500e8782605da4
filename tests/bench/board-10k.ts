// Benchmark: the leaders board with 10,000 subscription partitions (2,500 topics x 4 partitions,
// Failover, Exclusive and Key_Shared, 30,000 holder changes of which 3,000 in the flapping
// window), written the way the poller writes them.
//
// Prints: the read model's time (listLeaders), GET /api/v1/leaders over HTTP (time and bytes,
// raw and gzip), the browser-side filter work, and with --browser (after `npx next build`) the
// board in Chromium served by `next start`: time to the first row, and the main thread while
// scrolling the whole list, typing a filter and expanding every subscription.
//
// Run: node --conditions=react-server --import tsx tests/bench/board-10k.ts [--browser] [--runs 15]
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { get as httpGet } from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";

import { chromium, type Page } from "@playwright/test";

import { filterGroups, NO_FILTERS } from "@/lib/board/board-filters";
import { flattenBoard } from "@/lib/board/board-lines";
import type { LeadersBoard } from "@/lib/board/board-types";
import { createDb, type Db } from "@/lib/db/client";
import { seedBoard } from "@/tests/bench/board-seed";
import { startRouteServer } from "@/tests/bench/route-server";
import { startTestDatabase } from "@/tests/support/test-database";
import { findFreePort } from "@/tools/free-port";

const { values } = parseArgs({
  options: { browser: { type: "boolean", default: false }, runs: { type: "string", default: "15" }, resources: { type: "string", default: "10000" } },
});
const RUNS = Number(values.runs);
const RESOURCES = Number(values.resources);
const CLUSTER = "bench";
const root = process.cwd();

function summarize(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return `median ${at(0.5).toFixed(0)} ms, p90 ${at(0.9).toFixed(0)} ms, max ${sorted[sorted.length - 1]!.toFixed(0)} ms (${samples.length} runs)`;
}

/** GET with gzip accepted; resolves with the bytes received once the last one arrived. */
function readToLastByte(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { headers: { "accept-encoding": "gzip" } }, (response) => {
      let bytes = 0;
      response.on("data", (chunk: Buffer) => (bytes += chunk.length));
      response.on("end", () => (response.statusCode === 200 ? resolve(bytes) : reject(new Error(`HTTP ${response.statusCode}`))));
      response.on("error", reject);
    });
    request.on("error", reject);
  });
}

async function time<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await fn();
  return [value, performance.now() - start];
}

/**
 * Keeps the seeded leaders current as a running poller would (otherwise they turn stale after
 * 15 s): every 5 s it rewrites every row's last observation, as a poll cycle does.
 */
function keepCurrent(db: Db, clusterId: number): () => Promise<void> {
  let isRunning = true;
  const loop = (async () => {
    while (isRunning) {
      await db.$executeRaw`update held_resource set last_observed_at = now() where cluster_id = ${clusterId} and stale_since is null`;
      await db.$executeRaw`insert into poll_run (cluster_id, started_at, finished_at, duration_ms, cycle_ms, topic_count, resource_count, request_count, error_count, poller_epoch, poller_id)
        values (${clusterId}, now(), now(), 100, 5000, 2500, ${RESOURCES}, 2500, 0, 1, 'bench')`;
      await new Promise((resolve) => setTimeout(resolve, 5_000));
    }
  })();
  return async () => {
    isRunning = false;
    await loop;
  };
}

// Page scripts are strings: the TypeScript loader would wrap functions in helpers the page lacks.
const RECORD_LONG_TASKS = `window.benchTasks = [];
  new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.benchTasks.push(entry.duration); }).observe({ type: "longtask", buffered: true });`;
const START_OBSERVING = `(() => {
  window.benchTasks = []; window.benchFrames = []; window.benchRaf = true;
  let last = performance.now();
  function frame(now) { window.benchFrames.push(now - last); last = now; if (window.benchRaf) requestAnimationFrame(frame); }
  requestAnimationFrame(frame);
})()`;
const STOP_OBSERVING = `(() => { window.benchRaf = false; return { tasks: window.benchTasks, frames: window.benchFrames }; })()`;
const FIRST_LOAD_JS_BYTES = `performance.getEntriesByType("resource").filter((r) => new URL(r.name).pathname.endsWith(".js")).reduce((sum, r) => sum + r.encodedBodySize, 0)`;
const NEXT_FRAME = "new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))";

/** Long tasks and frame gaps on the page while `action` runs. */
async function observe(page: Page, action: () => Promise<void>): Promise<string> {
  await page.evaluate(START_OBSERVING);
  const start = Date.now();
  await action();
  const elapsed = Date.now() - start;
  const { tasks, frames } = (await page.evaluate(STOP_OBSERVING)) as { tasks: number[]; frames: number[] };
  const slowFrames = frames.filter((f) => f > 50).length;
  return `${elapsed} ms; long tasks: ${tasks.length}${tasks.length ? ` (longest ${Math.max(...tasks).toFixed(0)} ms)` : ""}; frames: ${frames.length}, longest ${Math.max(0, ...frames).toFixed(0)} ms, ${slowFrames} over 50 ms`;
}

async function measureBrowser(databaseUrl: string): Promise<void> {
  const distDir = process.env.BATON_NEXT_DIST_DIR || ".next";
  if (!existsSync(path.join(root, distDir, "BUILD_ID"))) {
    console.log(`browser: skipped (no production build in ${distDir}; run npx next build)`);
    return;
  }
  const port = await findFreePort();
  const server: ChildProcess = spawn(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "start", "-H", "127.0.0.1", "-p", String(port)], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      BATON_CLUSTERS: JSON.stringify([{ name: CLUSTER, adminUrl: "http://127.0.0.1:49151" }]),
      NEXT_TELEMETRY_DISABLED: "1",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const browser = await chromium.launch({ executablePath: process.env.BATON_CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
  try {
    for (let i = 0; i < 600; i++) {
      if (
        await fetch(`http://127.0.0.1:${port}/api/health`).then(
          () => true,
          () => false,
        )
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const apiTimes: number[] = [];
    let compressed = 0;
    for (let i = 0; i < RUNS + 3; i++) {
      const [response, ms] = await time(async () => {
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/leaders`, { headers: { "accept-encoding": "gzip" } });
        compressed = Number(res.headers.get("content-length") ?? 0) || (await res.clone().arrayBuffer()).byteLength;
        await res.text();
        return res;
      });
      if (response.status !== 200) throw new Error(`GET /api/v1/leaders answered ${response.status}`);
      if (i >= 3) apiTimes.push(ms);
    }
    console.log(`GET /api/v1/leaders from next start (gzip): ${summarize(apiTimes)}${compressed ? `; ${(compressed / 1e3).toFixed(0)} kB on the wire` : ""}`);

    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.addInitScript(RECORD_LONG_TASKS);
    // Warm the server (first compilation of the route) before measuring.
    await page.goto(`http://127.0.0.1:${port}/`);
    const loadStart = Date.now();
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.getByRole("treegrid", { name: "Leaders" }).getByRole("row").nth(1).waitFor();
    const firstRowMs = Date.now() - loadStart;
    const loadTasks = (await page.evaluate("window.benchTasks")) as number[];
    console.log(`browser: first row after ${firstRowMs} ms; long tasks during load: ${loadTasks.length} (longest ${Math.max(0, ...loadTasks).toFixed(0)} ms)`);
    // First Load JS: every script the board's page loaded, as sent (next start compresses them).
    const firstLoadJs = (await page.evaluate(FIRST_LOAD_JS_BYTES)) as number;
    console.log(`browser: First Load JS of the board ${(firstLoadJs / 1e3).toFixed(0)} kB as sent (target < 250 kB)`);
    const rows = await page.getByRole("treegrid", { name: "Leaders" }).getAttribute("aria-rowcount");
    console.log(`browser: ${Number(rows) - 1} lines in the list, ${await page.locator(".board-body .board-line").count()} in the DOM`);

    console.log(
      `browser: scroll to the end in 40 steps: ${await observe(page, async () => {
        for (let i = 0; i < 40; i++) {
          await page.mouse.wheel(0, 3_200);
          await page.evaluate(NEXT_FRAME);
        }
      })}`,
    );
    await page.evaluate("window.scrollTo(0, 0)");
    const filter = page.getByRole("searchbox");
    console.log(
      `browser: type "sub-77" into the filter: ${await observe(page, async () => {
        await filter.pressSequentially("sub-77", { delay: 60 });
        await page.getByText(/of \d+ subscriptions/).waitFor();
      })}`,
    );
    console.log(
      `browser: clear the filter: ${await observe(page, async () => {
        await filter.fill("");
        await page.getByText(/^\d+ subscriptions$/).waitFor();
      })}`,
    );
    console.log(
      `browser: expand all: ${await observe(page, async () => {
        await page.getByRole("button", { name: "Expand all" }).click();
        await page
          .getByRole("treegrid", { name: "Leaders" })
          .getByRole("row", { name: /^Partition 0/ })
          .first()
          .waitFor();
      })}`,
    );
    console.log(
      `browser: 12 s of live refreshes (every 5 s) with everything expanded: ${await observe(page, () => new Promise((resolve) => setTimeout(resolve, 12_000)))}`,
    );
  } finally {
    await browser.close();
    server.kill("SIGTERM");
  }
}

async function main(): Promise<void> {
  const database = await startTestDatabase();
  const db = createDb(database.url);
  let stopKeeping: () => Promise<void> = async () => undefined;
  try {
    const [{ clusterId }, seedMs] = await time(() =>
      seedBoard(db, { cluster: CLUSTER, resources: RESOURCES, partitionsPerTopic: 4, changes: 30_000, recentChanges: 3_000 }),
    );
    console.log(`seeded ${RESOURCES} subscription partitions and 30,000 changes in ${(seedMs / 1000).toFixed(1)} s`);
    stopKeeping = keepCurrent(db, clusterId);

    // The route handlers read the configuration on first use.
    process.env.DATABASE_URL = database.url;
    process.env.BATON_CLUSTERS = JSON.stringify([{ name: CLUSTER, adminUrl: "http://127.0.0.1:49151" }]);
    const { getConfig } = await import("@/lib/config");
    const { getDb } = await import("@/lib/db/client");
    const { listLeaders, ALL_LEADERS } = await import("@/lib/subscriptions/list-leaders");
    const { GET } = await import("@/app/api/v1/leaders/route");
    const config = getConfig();
    const read = () => listLeaders(getDb(), { clusterNames: [CLUSTER], thresholds: config.board, query: ALL_LEADERS });

    for (let i = 0; i < 3; i++) await read();
    const readTimes: number[] = [];
    let board: LeadersBoard | undefined;
    for (let i = 0; i < RUNS; i++) {
      const [value, ms] = await time(read);
      board = value;
      readTimes.push(ms);
    }
    const rows = board!.subscriptions.reduce((sum, g) => sum + g.partitions.length, 0);
    console.log(`listLeaders (SQL in two parallel statements + rules): ${summarize(readTimes)}; ${board!.subscriptions.length} subscriptions, ${rows} rows`);

    const server = await startRouteServer({ "GET /api/v1/leaders": GET as never });
    try {
      // The server's response time: request sent to the last byte of the (gzipped) answer
      // received, as a browser sees it; the browser's own decoding is not the server's time.
      const httpTimes: number[] = [];
      let wireBytes = 0;
      for (let i = 0; i < RUNS + 3; i++) {
        const [bytes, ms] = await time(() => readToLastByte(`${server.url}/api/v1/leaders`));
        if (i >= 3) httpTimes.push(ms);
        wireBytes = bytes;
      }
      const body = await (await fetch(`${server.url}/api/v1/leaders`)).text();
      console.log(
        `GET /api/v1/leaders over HTTP, to the last byte: ${summarize(httpTimes)}; ${(body.length / 1e6).toFixed(2)} MB of JSON, ${(wireBytes / 1e3).toFixed(0)} kB on the wire (gzip)`,
      );
    } finally {
      await server.close();
    }

    const groups = board!.subscriptions;
    const filterTimes: number[] = [];
    for (let i = 0; i < 20; i++) {
      const [, ms] = await time(async () => filterGroups(groups, { ...NO_FILTERS, q: `sub-${i}7 worker` }));
      filterTimes.push(ms);
    }
    const [lines, flattenMs] = await time(async () => flattenBoard(groups, new Set(groups.map((g) => g.key))));
    console.log(
      `browser-side work in Node: text filter over ${groups.length} subscriptions ${summarize(filterTimes)}; expanding all into ${lines.length} lines ${flattenMs.toFixed(1)} ms`,
    );

    if (values.browser) await measureBrowser(database.url);
  } finally {
    await stopKeeping();
    await db.$disconnect();
    await database.stop();
  }
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
