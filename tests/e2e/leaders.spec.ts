import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { createInterface } from "node:readline";

import { expect, test, type Page } from "@playwright/test";

import { LEADERS_E2E_BROKER } from "../../playwright.config";

// The leaders board against a real broker and the real worker: 3 consumers on a Failover
// subscription of a 2-partition topic; the board shows the broker's active consumers; one is
// killed and the board shows the new leader without a reload; the subscription page shows the
// change; the broker is stopped and the board says stale, not "no leader".
//
// The broker is this test's own (the shared one must not be stopped under other tests), on the
// ports playwright.config.ts gives the web server and the worker. It runs in a helper process
// (the "rig") with the fleet of consumers: Baton's server modules need Node's react-server
// condition, which Playwright's workers do not have.

const ROOT = process.cwd();
const RUN = randomUUID().slice(0, 6);
const SUBSCRIPTION = `leaders-${RUN}`;
const NAMES = [`w${RUN}-a`, `w${RUN}-b`, `w${RUN}-c`];
const LONG = 90_000;

/** The rig: a Node process that runs the broker and the consumers, driven over stdin/stdout (one JSON line each way). */
const RIG_SCRIPT = `
const readline = require("node:readline");
const { startBroker } = require(${JSON.stringify(path.join(ROOT, "tools/pulsar/broker.ts"))});
const { createPartitionedTopic, createScratchNamespace, createSubscription } = require(${JSON.stringify(path.join(ROOT, "tools/pulsar/admin-setup.ts"))});
const { requestAdminOk } = require(${JSON.stringify(path.join(ROOT, "tools/pulsar/admin-http.ts"))});
const { createFleet } = require(${JSON.stringify(path.join(ROOT, "tools/fleet/fleet.ts"))});

let broker, fleet, topic, scratch;
const commands = {
  async start({ webPort, brokerPort, names, subscription }) {
    broker = await startBroker({ webPort, brokerPort });
    scratch = await createScratchNamespace(broker.adminUrl, "e2e");
    topic = scratch.topic("orders");
    await createPartitionedTopic(broker.adminUrl, topic, 2);
    // Creating the subscription loads both partitions: the consumers' first subscribe is then quick.
    await createSubscription(broker.adminUrl, topic, subscription);
    fleet = createFleet({ wsUrl: broker.wsUrl });
    // One at a time, in name order; a fresh broker on a busy machine may miss an open timeout.
    for (const name of names) {
      for (let attempt = 1; ; attempt++) {
        try {
          if (attempt === 1) await fleet.startConsumer({ name, topic, subscription, subscriptionType: "Failover", openTimeoutMs: 30000 });
          else await fleet.consumer(name).start();
          break;
        } catch (error) {
          if (attempt >= 3) throw error;
        }
      }
    }
    return { topic };
  },
  /** The broker's active consumer of each partition. */
  async leaders({ subscription }) {
    const path = "/admin/v2/persistent/" + topic.slice("persistent://".length) + "/partitioned-stats?perPartition=true";
    const stats = JSON.parse((await requestAdminOk(broker.adminUrl, "GET", path)).text);
    return [0, 1].map((p) => stats.partitions[topic + "-partition-" + p]?.subscriptions?.[subscription]?.activeConsumerName ?? null);
  },
  async kill({ name }) {
    await fleet.consumer(name).kill();
  },
  async stopBroker() {
    await broker.stop();
  },
};
const send = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const { id, command, args } = JSON.parse(line);
  commands[command](args).then((result) => send({ id, result: result ?? null }), (error) => send({ id, error: String(error && error.stack || error) }));
});
process.stdin.on("end", async () => {
  await fleet?.shutdown("kill").catch(() => undefined);
  await broker?.stop().catch(() => undefined);
  process.exit(0);
});
`;

type Rig = { call<T>(command: string, args?: object): Promise<T>; close(): Promise<void> };

function startRig(): Rig {
  const child: ChildProcess = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "-e", RIG_SCRIPT], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  createInterface({ input: child.stdout! }).on("line", (line) => {
    let message: { id?: number; result?: unknown; error?: string };
    try {
      message = JSON.parse(line);
    } catch {
      return; // a log line of the broker launcher, not an answer
    }
    const waiter = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id!);
    if (message.error) waiter.reject(new Error(message.error));
    else waiter.resolve(message.result);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  void exited.then(() => {
    for (const waiter of pending.values()) waiter.reject(new Error("the rig exited"));
  });
  return {
    call<T>(command: string, args: object = {}) {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        child.stdin!.write(`${JSON.stringify({ id, command, args })}\n`);
      });
    },
    async close() {
      child.stdin!.end();
      await exited;
    },
  };
}

test.describe.configure({ mode: "serial" });

let rig: Rig;
let topic: string;
let startedAt: number;
let leaders: string[];
let killed: string;
let successor: string;
/** The Next column's name for partition 0 just before the kill. */
let predicted: string;

/** Next in line by the broker's Failover rule: the other consumers sorted by name, partition % their count. */
function expectedNext(partition: number): string {
  const rest = [...NAMES].sort().filter((name) => name !== leaders[partition]);
  return rest[partition % rest.length]!;
}

test.beforeAll(async () => {
  // Starting a broker takes 10-60 s on a busy two-core machine.
  test.setTimeout(300_000);
  rig = startRig();
  startedAt = Date.now();
  ({ topic } = await rig.call<{ topic: string }>("start", {
    webPort: LEADERS_E2E_BROKER.webPort,
    brokerPort: LEADERS_E2E_BROKER.brokerPort,
    names: NAMES,
    subscription: SUBSCRIPTION,
  }));
});

test.afterAll(async () => {
  await rig?.close();
});

async function brokerLeaders(): Promise<(string | null)[]> {
  return rig.call<(string | null)[]>("leaders", { subscription: SUBSCRIPTION });
}

function subscriptionRow(page: Page) {
  return page.getByRole("row", { name: new RegExp(SUBSCRIPTION) }).first();
}

function partitionRow(page: Page, partition: number) {
  return page.getByRole("treegrid", { name: "Leaders" }).getByRole("row", { name: new RegExp(`^Partition ${partition}\\b`) });
}

/** Opens the board filtered to this test's subscription (the URL holds the filter) and expands it from the keyboard. */
async function openBoard(page: Page): Promise<void> {
  await page.goto(`/?q=${SUBSCRIPTION}`);
  await expect(page.getByRole("searchbox")).toHaveValue(SUBSCRIPTION);
  const row = subscriptionRow(page);
  await expect(row).toBeVisible({ timeout: LONG });
  await row.focus();
  await page.keyboard.press("ArrowRight");
  await expect(row).toHaveAttribute("aria-expanded", "true");
}

test("the board shows the broker's active consumer of each partition, and works from the keyboard", async ({ page }) => {
  test.setTimeout(180_000);
  const pageErrors: string[] = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error" && /hydrat/i.test(message.text())) pageErrors.push(message.text());
  });
  await expect
    .poll(brokerLeaders, { timeout: LONG, message: "the broker names an active consumer for both partitions" })
    .toEqual([expect.any(String), expect.any(String)]);
  leaders = (await brokerLeaders()) as string[];

  await openBoard(page);
  await expect(partitionRow(page, 0)).toContainText(leaders[0]!, { timeout: LONG });
  await expect(partitionRow(page, 1)).toContainText(leaders[1]!, { timeout: LONG });
  // Three consumers for two partitions: one stands idle, and the board says so in words.
  await expect(subscriptionRow(page)).toContainText("Idle standbys");
  await expect(subscriptionRow(page)).toContainText("Failover");
  // The Next column: who the broker makes active if the partition's leader leaves.
  await expect(page.getByRole("treegrid", { name: "Leaders" }).getByRole("columnheader", { name: "Next" })).toBeVisible();
  await expect(partitionRow(page, 0).getByTestId("next-holder")).toHaveText(expectedNext(0), { timeout: LONG });
  await expect(partitionRow(page, 1).getByTestId("next-holder")).toHaveText(expectedNext(1));

  // Keyboard: down to partition 0, back up, collapse and expand again.
  await page.keyboard.press("ArrowDown");
  await expect(partitionRow(page, 0)).toBeFocused();
  await page.keyboard.press("ArrowLeft");
  await expect(subscriptionRow(page)).toBeFocused();
  await page.keyboard.press("ArrowLeft");
  await expect(subscriptionRow(page)).toHaveAttribute("aria-expanded", "false");
  await page.keyboard.press("Space");
  await expect(subscriptionRow(page)).toHaveAttribute("aria-expanded", "true");
  await page.screenshot({ path: "docs/screenshots/leaders-board.png" });
  // The server-rendered board hydrates without a mismatch, and nothing threw.
  expect(pageErrors).toEqual([]);
});

test("when a leader is killed, the board shows its successor without a reload", async ({ page }) => {
  test.setTimeout(180_000);
  await openBoard(page);
  await expect(partitionRow(page, 0)).toContainText(leaders[0]!, { timeout: LONG });
  await page.evaluate(() => {
    (window as unknown as { batonNotReloaded: boolean }).batonNotReloaded = true;
  });

  // The prediction the board shows just before the kill is the leader the broker then elects.
  predicted = (await partitionRow(page, 0).getByTestId("next-holder").textContent())!;
  expect(predicted).toBe(expectedNext(0));
  killed = leaders[0]!;
  await rig.call("kill", { name: killed });
  await expect.poll(async () => (await brokerLeaders())[0], { timeout: LONG, message: "the broker names a successor on partition 0" }).not.toBe(killed);
  successor = (await brokerLeaders())[0]!;
  expect(successor).not.toBeNull();
  expect(successor).toBe(predicted);

  await expect(partitionRow(page, 0)).toContainText(successor, { timeout: LONG });
  await expect(partitionRow(page, 0)).not.toContainText(killed);
  expect(await page.evaluate(() => (window as unknown as { batonNotReloaded?: boolean }).batonNotReloaded)).toBe(true);
});

test("the subscription page shows the change on the timeline and in the list, and the consumer page what it holds", async ({ page }) => {
  test.setTimeout(120_000);
  await openBoard(page);
  await subscriptionRow(page).getByRole("link", { name: SUBSCRIPTION }).click();
  await expect(page.getByRole("heading", { level: 1, name: SUBSCRIPTION })).toBeVisible();
  await expect(page).toHaveURL(/\/subscriptions\?cluster=e2e-leaders&/);

  const changes = page.getByRole("region", { name: "Changes" });
  await expect(
    changes.getByRole("row", { name: new RegExp(`Leader changed ${escapeRegExp(killed)} ${escapeRegExp(successor)} as predicted`) }).first(),
  ).toBeVisible({ timeout: LONG });
  // What if a consumer joins: one that sorts before both survivors takes partition 0, and the survivors shift.
  const joinPreview = page.getByRole("region", { name: "What if a consumer joins" });
  await joinPreview.getByLabel("New consumer's name").fill(`w${RUN}-0`);
  await expect(joinPreview.getByRole("status")).toHaveText("From 2 to 3 consumers: 2 of 2 partitions change hands.");
  await expect(joinPreview.getByRole("row", { name: `Partition 0 ${successor} w${RUN}-0` })).toBeVisible();
  const chart = page.getByTestId("swimlane-chart");
  await expect(chart.locator("path > title", { hasText: `${killed} → ${successor}` }).first()).toBeAttached();
  const legend = page.getByRole("list", { name: "Legend" });
  for (const name of [killed, successor]) await expect(legend).toContainText(name);

  // A custom range around this test's few minutes (the URL holds it), for a readable picture.
  const range = { range: "custom", from: new Date(startedAt - 60_000).toISOString(), to: new Date(Date.now() + 30_000).toISOString() };
  await page.goto(`/subscriptions?${new URLSearchParams({ cluster: LEADERS_E2E_BROKER.cluster, topic, subscription: SUBSCRIPTION, ...range })}`);
  await expect(page.getByRole("button", { name: "Custom" })).toHaveAttribute("aria-pressed", "true");
  await expect(chart.locator("path > title", { hasText: `${killed} → ${successor}` }).first()).toBeAttached();
  await expect(chart.locator("rect > title", { hasText: `${successor} held it` }).first()).toBeAttached();
  await page.screenshot({ path: "docs/screenshots/subscription.png", fullPage: true });

  await page.getByRole("region", { name: "Now" }).getByRole("link", { name: successor, exact: true }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: successor })).toBeVisible();
  await expect(
    page
      .getByRole("region", { name: "Positions" })
      .getByRole("row", { name: new RegExp(`${SUBSCRIPTION}.*holds it`) })
      .first(),
  ).toBeVisible();
  await expect(page.getByRole("region", { name: "History" })).toContainText(killed);
  await page.screenshot({ path: "docs/screenshots/consumer.png", fullPage: true });

  // Baton keeps the score: the kill's change was predicted and confirmed.
  await page.goto("/settings/clusters");
  const score = page.getByRole("row", { name: new RegExp(`^${LEADERS_E2E_BROKER.cluster}\\b`) }).getByTestId("prediction-score");
  await expect(score).toContainText("1 predicted: 1 confirmed, 0 wrong");
});

test("when the broker stops, the board says stale with the error, never 'no active consumer'", async ({ page }) => {
  test.setTimeout(180_000);
  await openBoard(page);
  await expect(partitionRow(page, 0)).toContainText(successor, { timeout: LONG });

  await rig.call("stopBroker");
  for (const partition of [0, 1]) {
    const row = partitionRow(page, partition);
    await expect(row).toContainText("Stale since", { timeout: LONG });
    await expect(row).toContainText("last known");
    await expect(row).toContainText(/cannot reach|HTTP 412|no answer/);
  }
  await expect(subscriptionRow(page)).toContainText("Stale (2 of 2 partitions)");
  await expect(page.getByRole("treegrid", { name: "Leaders" })).not.toContainText("No active consumer");
  await page.screenshot({ path: "docs/screenshots/leaders-board-stale.png" });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
