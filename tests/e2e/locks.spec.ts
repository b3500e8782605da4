import { randomUUID } from "node:crypto";

import { expect, test, type Page } from "@playwright/test";
import pg from "pg";

import { LOCKS_E2E_CLUSTER, LOCKS_E2E_ETCD_CLUSTER, LOCKS_E2E_ZOOKEEPER_CLUSTER } from "../../playwright.config";

// Locks on the board and on their own page: locks go straight into the e2e database the way
// the poller writes them (held_resource rows of kind REDIS_LOCK under a cluster row of kind
// REDIS, holder_change rows with their ending), since only the poller writes them. The pages
// must show the holder, the TTL left, the waiters, how the last hold ended, the health in
// words, the timeline with its expiry marker, and the change list paged.

const MINUTE = 60_000;
const run = randomUUID().slice(0, 6);
const CLUSTER = LOCKS_E2E_CLUSTER.name;
const key = (name: string) => `lock:${name}-${run}`;
const LEADER = `leader:scheduler-${run}`;
const who = (name: string) => `${name}-${run}`;
const BUSY_CHANGES = 60;

function databaseUrl(): string {
  const url = process.env.BATON_TEST_DATABASE_URL;
  if (!url) throw new Error("BATON_TEST_DATABASE_URL is not set: run the browser tests with npm test");
  if (!["127.0.0.1", "localhost"].includes(new URL(url).hostname)) throw new Error("the e2e tests refuse a non-local database");
  return url;
}

type LockSeed = {
  key: string;
  pattern: string;
  holder: string | null;
  holderSinceMs?: number;
  ttlMs?: number;
  waiters?: string[];
  isSplit?: boolean;
  staleSinceMs?: number;
  lastError?: string;
  firstSeenMs: number;
  source?: Record<string, unknown>;
  longestHoldMs?: number;
};

type ChangeSeed = {
  key: string;
  kind: string;
  ending: string | null;
  from: string | null;
  to: string | null;
  atMs: number;
  heldSinceMs?: number;
  expiresAtBeforeMs?: number;
  /** The next holder predicted just before the change, and how the change scored it. */
  prediction?: { holder: string | null; outcome: "CONFIRMED" | "WRONG" | "NOT_PREDICTED" };
};

const iso = (ms: number | undefined | null) => (ms === undefined || ms === null ? null : new Date(ms).toISOString());

async function seed(db: pg.Client, nowMs: number): Promise<void> {
  const scope = {
    patterns: [
      { match: "lock:*", layout: "token", mustBeHeld: false },
      { match: "leader:*", layout: "redisson", mustBeHeld: true },
    ],
  };
  // A slow poll interval: the seeded locks stay current (not stale) for the few minutes the test takes.
  const { rows } = await db.query<{ id: number }>(
    `insert into cluster (name, kind, admin_url, scope, poll_interval_ms, is_configured, updated_at) values ($1, 'REDIS', 'redis://127.0.0.1:6379', $2, 120000, true, now())
     on conflict (name) do update set kind = 'REDIS', scope = excluded.scope, poll_interval_ms = excluded.poll_interval_ms returning id`,
    [CLUSTER, JSON.stringify(scope)],
  );
  const clusterId = rows[0]!.id;
  await db.query(
    `insert into poll_run (cluster_id, started_at, finished_at, duration_ms, cycle_ms, topic_count, resource_count, request_count, error_count, poller_epoch, poller_id)
     values ($1, $2, $3, 40, 120000, 5, 5, 1, 0, 1, 'e2e')`,
    [clusterId, new Date(nowMs - 40), new Date(nowMs)],
  );

  const locks: LockSeed[] = [
    // A 10-minute TTL: its expiry 3 minutes ago and the busy lock's churn are still findings
    // (each ends once the holder has kept the lock for one TTL: tests/e2e/health.spec.ts).
    {
      key: key("daily-job"),
      pattern: "lock:*",
      holder: who("pod-b"),
      holderSinceMs: nowMs - 3 * MINUTE,
      ttlMs: 10 * MINUTE,
      firstSeenMs: nowMs - 20 * MINUTE,
      longestHoldMs: 12 * MINUTE,
    },
    {
      key: key("fair"),
      pattern: "lock:*",
      holder: who("pod-c"),
      waiters: [who("pod-d"), who("pod-e")],
      firstSeenMs: nowMs - 3 * 3_600_000,
      source: { layout: "redisson", reentrancy: 2 },
    },
    {
      key: key("split"),
      pattern: "lock:*",
      holder: null,
      isSplit: true,
      firstSeenMs: nowMs - 3_600_000,
      source: { masters: ["127.0.0.1:6380 pod-g", "127.0.0.1:6381 pod-h", "127.0.0.1:6382 (none)"] },
    },
    {
      key: key("stale"),
      pattern: "lock:*",
      holder: who("pod-f"),
      staleSinceMs: nowMs - 2 * MINUTE,
      lastError: "connect ECONNREFUSED 127.0.0.1:6390",
      firstSeenMs: nowMs - 3_600_000,
    },
    { key: key("busy"), pattern: "lock:*", holder: who("worker-60"), holderSinceMs: nowMs - 30_000, ttlMs: 10 * MINUTE, firstSeenMs: nowMs - 2 * 3_600_000 },
    { key: LEADER, pattern: "leader:*", holder: null, firstSeenMs: nowMs - 3_600_000 },
  ];
  const ids = new Map<string, string>();
  for (const lock of locks) {
    const ttlMs = lock.ttlMs ?? 30_000;
    const details = {
      pattern: lock.pattern,
      ttlMs: lock.holder === null ? null : ttlMs,
      isSplit: lock.isSplit ?? false,
      stats: { tenureMaxTtlMs: ttlMs, nearExpiryCount: 0, longestHoldMs: lock.longestHoldMs ?? 0 },
      source: lock.source ?? { layout: "token" },
    };
    const lastObservedMs = lock.staleSinceMs ? lock.staleSinceMs - 1_000 : nowMs - 1_000;
    const { rows: inserted } = await db.query<{ id: string }>(
      `insert into held_resource (cluster_id, kind, resource_key, holder, holder_token, holder_since, expires_at, consumers, details, first_seen_at, last_observed_at, stale_since, last_error, last_error_at)
       values ($1, 'REDIS_LOCK', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $11) returning id`,
      [
        clusterId,
        lock.key,
        lock.holder,
        lock.holder === null ? null : `6f1c9a2e-4b7d-4e8f-9a0b-${run}:${lock.holder}`,
        iso(lock.holder === null ? null : (lock.holderSinceMs ?? nowMs - 10 * MINUTE)),
        iso(lock.holder === null ? null : lastObservedMs + ttlMs),
        JSON.stringify((lock.waiters ?? []).map((name) => ({ name }))),
        JSON.stringify(details),
        new Date(lock.firstSeenMs),
        new Date(lastObservedMs),
        iso(lock.staleSinceMs),
        lock.lastError ?? null,
      ],
    );
    ids.set(lock.key, inserted[0]!.id);
  }

  const changes: ChangeSeed[] = [
    { key: key("daily-job"), kind: "HOLDER_APPEARED", ending: null, from: null, to: who("pod-a"), atMs: nowMs - 15 * MINUTE },
    {
      key: key("daily-job"),
      kind: "HOLDER_CHANGED",
      ending: "EXPIRED",
      from: who("pod-a"),
      to: who("pod-b"),
      atMs: nowMs - 3 * MINUTE,
      heldSinceMs: nowMs - 15 * MINUTE,
      expiresAtBeforeMs: nowMs - 3 * MINUTE - 1_100,
    },
    // A busy lock: a hold a minute, each released and taken by the next worker.
    ...Array.from(
      { length: BUSY_CHANGES },
      (_, i): ChangeSeed => ({
        key: key("busy"),
        kind: "HOLDER_CHANGED",
        ending: "RELEASED",
        from: who(`worker-${i}`),
        to: who(`worker-${i + 1}`),
        atMs: nowMs - (BUSY_CHANGES - i) * MINUTE + 30_000,
        // The two newest hand-overs went through a queue: one as predicted, one not.
        ...(i === BUSY_CHANGES - 1 ? { prediction: { holder: who(`worker-${i + 1}`), outcome: "CONFIRMED" as const } } : {}),
        ...(i === BUSY_CHANGES - 2 ? { prediction: { holder: who("worker-7"), outcome: "WRONG" as const } } : {}),
      }),
    ),
  ];
  for (const c of changes) {
    const details = {
      tokenBefore: c.from,
      tokenAfter: c.to,
      expiresAtBefore: iso(c.expiresAtBeforeMs),
      heldSince: iso(c.heldSinceMs),
      acquiredAt: iso(c.atMs - 200),
      waitersBefore: [],
      waitersAfter: [],
      hint: null,
    };
    await db.query(
      `insert into holder_change (cluster_id, resource_id, kind, cause, ending, from_holder, to_holder, old_seen_at, new_seen_at, details, poller_epoch, predicted_holder, prediction)
       values ($1, $2, $3, 'CLIENT', $4, $5, $6, $7, $8, $9, 1, $10, $11::prediction_outcome)`,
      [
        clusterId,
        ids.get(c.key),
        c.kind,
        c.ending,
        c.from,
        c.to,
        new Date(c.atMs - 400),
        new Date(c.atMs),
        JSON.stringify(details),
        c.prediction?.holder ?? null,
        c.prediction?.outcome ?? null,
      ],
    );
  }
}

let db: pg.Client;

function locksSection(page: Page) {
  return page.getByRole("region", { name: "Locks" });
}

function lockRow(page: Page, lockKey: string) {
  return locksSection(page).getByRole("row", { name: new RegExp(lockKey.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")) });
}

test.describe("locks on the board and their pages", () => {
  test.describe.configure({ mode: "serial" });

  test.beforeAll(async () => {
    db = new pg.Client({ connectionString: databaseUrl() });
    await db.connect();
    await db.query("delete from cluster where name = $1", [CLUSTER]);
    await seed(db, Date.now());
  });

  test.afterAll(async () => {
    if (!db) return;
    await db.query("delete from cluster where name = $1", [CLUSTER]);
    await db.end();
  });

  test("the board shows every lock beside the subscriptions: holder, TTL left, waiters, last change and health in words", async ({ page }) => {
    await page.goto(`/?q=${run}`);
    await expect(page.getByRole("heading", { level: 1, name: "Leaders" })).toBeVisible();
    const section = locksSection(page);
    await expect(section.getByRole("heading", { name: /Locks/ })).toBeVisible();

    const daily = lockRow(page, key("daily-job"));
    await expect(daily).toContainText(who("pod-b"));
    await expect(daily).toContainText(`expired while held by ${who("pod-a")}`);
    await expect(daily).toContainText(`Expired while held by ${who("pod-a")}`);
    await expect(daily).toContainText(/\d+ s left|TTL \d+ s at last read, \d+ s ago/);
    await expect(lockRow(page, key("fair"))).toContainText(`2: ${who("pod-d")}, ${who("pod-e")}`);
    await expect(lockRow(page, key("fair"))).toContainText("2 waiters");
    // The details cell is the kind's: a Redisson lock's layout and reentrancy.
    await expect(lockRow(page, key("fair"))).toContainText("redisson, held 2×");
    await expect(lockRow(page, key("split"))).toContainText("Split: no majority");
    await expect(lockRow(page, key("split"))).toContainText("Redlock split");
    await expect(lockRow(page, LEADER)).toContainText("No holder");
    // A lock whose reads fail is unknown, never "free".
    const stale = lockRow(page, key("stale"));
    await expect(stale).toContainText("Stale since");
    await expect(stale).toContainText(`last known: ${who("pod-f")}`);
    await expect(stale).not.toContainText("free");
    await expect(lockRow(page, key("busy"))).toContainText(/Churn: \d+ changes in 10 min/);
    await section.screenshot({ path: "docs/screenshots/locks-board.png" });

    // The kind filter goes into the URL: locks only hides the subscriptions, Pulsar only the locks.
    await page.getByRole("combobox", { name: "Kind" }).selectOption({ label: "Locks" });
    await expect(page).toHaveURL(/kind=locks/);
    await expect(page.getByRole("treegrid", { name: "Leaders" })).toHaveCount(0);
    await expect(lockRow(page, key("daily-job"))).toBeVisible();
    await page.getByRole("combobox", { name: "Kind" }).selectOption({ label: "Pulsar subscriptions" });
    await expect(page).toHaveURL(/kind=pulsar/);
    await expect(locksSection(page)).toHaveCount(0);
    await page.goto(`/?q=${run}&kind=redis&cluster=${CLUSTER}`);
    await expect(page.getByRole("combobox", { name: "Kind" })).toHaveValue("redis");
    await expect(lockRow(page, key("daily-job"))).toBeVisible();
  });

  test("the lock page tells the expiry while held in words, on the timeline and in the change list", async ({ page }) => {
    await page.goto(`/?q=daily-job-${run}`);
    await lockRow(page, key("daily-job"))
      .getByRole("link", { name: key("daily-job") })
      .click();
    await expect(page.getByRole("heading", { level: 1, name: key("daily-job") })).toBeVisible();
    await expect(page).toHaveURL(/\/locks\?cluster=e2e-locks&key=/);

    const now = page.getByRole("region", { name: "Now" });
    await expect(now.getByText(`Expired while held by ${who("pod-a")}`)).toBeVisible();
    const facts = now.getByRole("definition");
    await expect(facts.filter({ hasText: who("pod-b") }).first()).toBeVisible();
    await expect(now).toContainText("6f1c9a2e…");
    await expect(now).toContainText("token layout");

    // First seen 20 minutes ago: the page opens on a range that fits it (the one rule), not hours of "not observed".
    await expect(page.getByRole("button", { name: "Since the first data" })).toHaveAttribute("aria-pressed", "true");
    const chart = page.getByTestId("swimlane-chart");
    await expect(chart.locator("path > title", { hasText: `${who("pod-a")} → ${who("pod-b")} (expired while held)` })).toBeAttached();
    await expect(chart.locator("rect > title", { hasText: `${who("pod-b")} held it` }).first()).toBeAttached();

    const changes = page.getByRole("region", { name: "Changes" });
    await expect(
      changes.getByRole("row", {
        name: new RegExp(
          `expired while held by ${who("pod-a")} \\(it held it since \\d\\d:\\d\\d:\\d\\d\\.\\d{3}; its TTL ended at \\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\); ${who("pod-b")} acquired it`,
        ),
      }),
    ).toBeVisible();
    await expect(changes.getByRole("row", { name: new RegExp(`${who("pod-a")} acquired it`) })).toBeVisible();
    await page.screenshot({ path: "docs/screenshots/lock.png", fullPage: true });

    // Its pattern's page: a lane per lock, and every lock of the pattern now.
    await now.getByRole("link", { name: "lock:*" }).click();
    await expect(page).toHaveURL(/\/locks\?cluster=e2e-locks&pattern=lock%3A\*/);
    await expect(page.getByRole("heading", { level: 1, name: "lock:*" })).toBeVisible();
    await expect(page.getByRole("region", { name: "Now" }).getByRole("row")).toHaveCount(6);
    for (const name of ["busy", "daily-job", "fair", "split", "stale"]) {
      await expect(chart.locator("rect > title", { hasText: `${key(name)}: ` }).first()).toBeAttached();
    }
  });

  test("a busy lock's changes are paged, older and newer", async ({ page }) => {
    await page.goto(`/locks?${new URLSearchParams({ cluster: CLUSTER, key: key("busy"), range: "6h" })}`);
    const changes = page.getByRole("region", { name: "Changes" });
    const pager = changes.getByRole("navigation", { name: "Change pages" });
    await expect(pager).toContainText(`Page 1: changes 1–50 of ${BUSY_CHANGES}`);
    await expect(changes.getByRole("row")).toHaveCount(51);
    await expect(changes.getByRole("row", { name: new RegExp(`${who("worker-59")} released it; ${who("worker-60")} acquired it`) })).toBeVisible();
    // Each change says how it compared with the next holder Baton predicted: a wrong one is loud.
    await expect(changes.getByRole("row", { name: new RegExp(`${who("worker-60")} acquired it.*as predicted`) })).toBeVisible();
    await expect(
      changes.getByRole("row", { name: new RegExp(`${who("worker-59")} acquired it.*prediction wrong: ${who("worker-7")} expected`) }),
    ).toBeVisible();
    await expect(changes.locator("[data-outcome=wrong]")).toHaveCount(1);
    await pager.getByRole("button", { name: "Older" }).click();
    await expect(pager).toContainText(`Page 2: changes 51–60 of ${BUSY_CHANGES}`);
    await expect(changes.getByRole("row")).toHaveCount(11);
    await expect(changes.getByRole("row", { name: new RegExp(`${who("worker-0")} released it; ${who("worker-1")} acquired it`) })).toBeVisible();
    await expect(pager.getByRole("button", { name: "Older" })).toBeDisabled();
    await pager.getByRole("button", { name: "Newer" }).click();
    await expect(pager).toContainText("Page 1: changes 1–50");
  });

  test("the holder page lists the locks a name holds and where it waits", async ({ page }) => {
    await page.goto(`/consumers/${encodeURIComponent(who("pod-c"))}`);
    const locks = page.getByRole("region", { name: "Locks" });
    await expect(locks.getByRole("row", { name: new RegExp(`${key("fair")}.*holds it`) })).toBeVisible();
    await page.goto(`/consumers/${encodeURIComponent(who("pod-e"))}`);
    await expect(
      page.getByRole("region", { name: "Locks" }).getByRole("row", { name: new RegExp(`${key("fair")}.*number 2 in the queue, held by ${who("pod-c")}`) }),
    ).toBeVisible();
  });
});

// Each kind's own details: a ZooKeeper LeaderLatch and an etcd election, seeded as their sources
// write them (the details of lib/sources/zookeeper/lock-observation.ts and
// lib/sources/etcd/etcd-observation.ts, and the changes' sourceBefore / sourceAfter).
const ZK_CLUSTER = LOCKS_E2E_ZOOKEEPER_CLUSTER.name;
const ETCD_CLUSTER = LOCKS_E2E_ETCD_CLUSTER.name;
const ZK_PATH = `/e2e/leader-${run}`;
const ETCD_KEY = `elections/report-${run}`;
const latchNode = (sequence: number) => `_c_2d3c0f4e-8a59-4a36-9f0e-3f0e8e1c6d11-latch-${String(sequence).padStart(10, "0")}`;
const SESSION_BEFORE = "0x1000a3f2c0001";
const SESSION_AFTER = "0x1000a3f2c0007";

async function seedKindCluster(db: pg.Client, name: string, kind: "ZOOKEEPER" | "ETCD", scope: object, nowMs: number): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `insert into cluster (name, kind, admin_url, scope, poll_interval_ms, is_configured, updated_at) values ($1, $2, '127.0.0.1:9', $3, 120000, true, now())
     on conflict (name) do update set kind = excluded.kind, scope = excluded.scope, poll_interval_ms = excluded.poll_interval_ms returning id`,
    [name, kind, JSON.stringify(scope)],
  );
  await db.query(
    `insert into poll_run (cluster_id, started_at, finished_at, duration_ms, cycle_ms, topic_count, resource_count, request_count, error_count, poller_epoch, poller_id)
     values ($1, $2, $3, 40, 120000, 1, 1, 1, 0, 1, 'e2e')`,
    [rows[0]!.id, new Date(nowMs - 40), new Date(nowMs)],
  );
  return rows[0]!.id;
}

type KindLockSeed = {
  clusterId: number;
  kind: string;
  key: string;
  pattern: string;
  holder: string;
  token: string;
  expiresAtMs: number;
  waiters: string[];
  source: Record<string, unknown>;
  nowMs: number;
};

async function seedKindLock(db: pg.Client, lock: KindLockSeed): Promise<string> {
  const details = {
    pattern: lock.pattern,
    ttlMs: lock.expiresAtMs - lock.nowMs,
    isSplit: false,
    stats: { tenureMaxTtlMs: null, nearExpiryCount: 0, longestHoldMs: 0 },
    source: lock.source,
  };
  const { rows } = await db.query<{ id: string }>(
    `insert into held_resource (cluster_id, kind, resource_key, holder, holder_token, holder_since, expires_at, consumers, details, first_seen_at, last_observed_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) returning id`,
    [
      lock.clusterId,
      lock.kind,
      lock.key,
      lock.holder,
      lock.token,
      new Date(lock.nowMs - 2 * MINUTE),
      new Date(lock.expiresAtMs),
      JSON.stringify(lock.waiters.map((name) => ({ name }))),
      JSON.stringify(details),
      new Date(lock.nowMs - 20 * MINUTE),
      new Date(lock.nowMs - 1_000),
    ],
  );
  return rows[0]!.id;
}

async function seedKindChange(
  db: pg.Client,
  clusterId: number,
  resourceId: string,
  change: { kind: string; ending: string | null; from: string | null; to: string | null; atMs: number; details: Record<string, unknown> },
): Promise<void> {
  await db.query(
    `insert into holder_change (cluster_id, resource_id, kind, cause, ending, from_holder, to_holder, old_seen_at, new_seen_at, details, poller_epoch)
     values ($1, $2, $3, 'CLIENT', $4, $5, $6, $7, $8, $9, 1)`,
    [
      clusterId,
      resourceId,
      change.kind,
      change.ending,
      change.from,
      change.to,
      new Date(change.atMs - 400),
      new Date(change.atMs),
      JSON.stringify({ waitersBefore: [], waitersAfter: [], hint: null, ...change.details }),
    ],
  );
}

async function seedKinds(db: pg.Client, nowMs: number): Promise<void> {
  const zkCluster = await seedKindCluster(
    db,
    ZK_CLUSTER,
    "ZOOKEEPER",
    { patterns: [{ match: ZK_PATH, layout: "curator-leader-latch", mustBeHeld: true }] },
    nowMs,
  );
  const zkSource = {
    recipe: "curator-leader-latch",
    lockNodeExists: true,
    contenderDir: ZK_PATH,
    holderNode: latchNode(7),
    holderSessionId: SESSION_AFTER,
    holderNodeCreatedAt: new Date(nowMs - 2 * MINUTE).toISOString(),
    holderNodeCzxid: 41,
    sessionExpiry: "server dump",
    waiterNodes: [
      { node: latchNode(8), session: "0x1000a3f2c0008" },
      { node: latchNode(9), session: "0x1000a3f2c0009" },
    ],
    otherChildren: [],
    batonSessionTimeoutMs: 10_000,
  };
  const zkLock = await seedKindLock(db, {
    clusterId: zkCluster,
    kind: "ZOOKEEPER_LOCK",
    key: ZK_PATH,
    pattern: ZK_PATH,
    holder: who("zk-a"),
    token: `${SESSION_AFTER}/${latchNode(7)}`,
    expiresAtMs: nowMs + 5 * MINUTE,
    waiters: [who("zk-b"), who("zk-c")],
    source: zkSource,
    nowMs,
  });
  await seedKindChange(db, zkCluster, zkLock, {
    kind: "HOLDER_APPEARED",
    ending: null,
    from: null,
    to: who("zk-a"),
    atMs: nowMs - 10 * MINUTE,
    details: {
      tokenBefore: null,
      tokenAfter: `${SESSION_BEFORE}/${latchNode(1)}`,
      sourceBefore: {},
      sourceAfter: { ...zkSource, holderSessionId: SESSION_BEFORE, holderNode: latchNode(1) },
    },
  });
  // zk-a's session expired and it came back with a new one before Baton's next read: a hidden flap.
  await seedKindChange(db, zkCluster, zkLock, {
    kind: "HIDDEN_FLAP",
    ending: "RELEASED",
    from: who("zk-a"),
    to: who("zk-a"),
    atMs: nowMs - 2 * MINUTE,
    details: {
      tokenBefore: `${SESSION_BEFORE}/${latchNode(1)}`,
      tokenAfter: `${SESSION_AFTER}/${latchNode(7)}`,
      sourceBefore: { ...zkSource, holderSessionId: SESSION_BEFORE, holderNode: latchNode(1) },
      sourceAfter: zkSource,
    },
  });

  const etcdCluster = await seedKindCluster(db, ETCD_CLUSTER, "ETCD", { patterns: [{ match: "elections/", layout: "go-election", mustBeHeld: true }] }, nowMs);
  // A lease of 600 s with 200 s left at the last read: nobody has renewed it for 400 s.
  const etcdSource = {
    layout: "go-election",
    key: `${ETCD_KEY}/694d7a1b2c3d4e5f`,
    leaseId: "694d7a1b2c3d4e5f",
    createRevision: 1207,
    modRevision: 1207,
    leaseGrantedTtlS: 600,
    leaseTtlS: 200,
    revision: 1311,
    waiters: [{ name: who("etcd-b"), key: `${ETCD_KEY}/694d7a1b2c3d4e70`, leaseId: "694d7a1b2c3d4e70", createRevision: 1209 }],
  };
  const etcdLock = await seedKindLock(db, {
    clusterId: etcdCluster,
    kind: "ETCD_LOCK",
    key: ETCD_KEY,
    pattern: "elections/",
    holder: who("etcd-a"),
    token: "694d7a1b2c3d4e5f@1207",
    expiresAtMs: nowMs + 200_000,
    waiters: [who("etcd-b")],
    source: etcdSource,
    nowMs,
  });
  await seedKindChange(db, etcdCluster, etcdLock, {
    kind: "HOLDER_CHANGED",
    ending: "EXPIRED",
    from: who("etcd-z"),
    to: who("etcd-a"),
    atMs: nowMs - 8 * MINUTE,
    details: {
      tokenBefore: "694d7a1b2c3d4e11@1100",
      tokenAfter: "694d7a1b2c3d4e5f@1207",
      sourceBefore: { leaseId: "694d7a1b2c3d4e11", leaseTtlS: 0 },
      sourceAfter: etcdSource,
    },
  });
}

test.describe("each lock kind's own details", () => {
  test.describe.configure({ mode: "serial" });
  let kindsDb: pg.Client;

  test.beforeAll(async () => {
    kindsDb = new pg.Client({ connectionString: databaseUrl() });
    await kindsDb.connect();
    await kindsDb.query("delete from cluster where name = any($1)", [[ZK_CLUSTER, ETCD_CLUSTER]]);
    await seedKinds(kindsDb, Date.now());
  });

  test.afterAll(async () => {
    if (!kindsDb) return;
    await kindsDb.query("delete from cluster where name = any($1)", [[ZK_CLUSTER, ETCD_CLUSTER]]);
    await kindsDb.end();
  });

  test("the board's details cell tells a ZooKeeper holder's session and an etcd lease nobody renews", async ({ page }) => {
    await page.goto(`/?q=${run}&kind=locks`);
    await expect(lockRow(page, ZK_PATH)).toContainText(`session ${SESSION_AFTER}, seq 7`);
    await expect(lockRow(page, ETCD_KEY)).toContainText("rev 1207, lease 600 s");
    await expect(lockRow(page, ETCD_KEY)).toContainText("lease not renewed");
  });

  test("the Clusters page claims nothing of `dump` for a ZooKeeper it cannot reach: only its setting, and that it is down", async ({ page }) => {
    await page.goto("/settings/clusters");
    const row = page.getByRole("row", { name: new RegExp(`^${ZK_CLUSTER}\\b`) });
    await expect(row).toContainText("session dump auto");
    await expect(row.getByText("Down", { exact: true })).toBeVisible();
    await expect(row).not.toContainText("4lw.commands.whitelist");
    await expect(row).not.toContainText("allows `dump`");
  });

  test("a ZooKeeper lock's page shows its session, the session's time left, the waiters' sequences and the new session of the same participant", async ({
    page,
  }) => {
    await page.goto(`/locks?${new URLSearchParams({ cluster: ZK_CLUSTER, key: ZK_PATH })}`);
    const panel = page.getByLabel("ZooKeeper details");
    await expect(panel).toContainText(`${latchNode(7)} (sequence 7)`);
    await expect(panel).toContainText(SESSION_AFTER);
    await expect(panel).toContainText(/Session time left\s*[45] m( \d+ s)? left/);
    const waiters = panel.getByRole("list", { name: "ZooKeeper waiters in order" }).getByRole("listitem");
    await expect(waiters).toHaveText([`${who("zk-b")} (sequence 8, session 0x1000a3f2c0008)`, `${who("zk-c")} (sequence 9, session 0x1000a3f2c0009)`]);
    const changes = page.getByRole("region", { name: "Changes" });
    await expect(
      changes.getByRole("row", { name: new RegExp(`new session of the same participant: session ${SESSION_BEFORE} → ${SESSION_AFTER}, node sequence 7`) }),
    ).toBeVisible();
    await expect(changes.getByRole("row", { name: new RegExp(`${who("zk-a")} acquired it.*session ${SESSION_BEFORE}, node sequence 1`) })).toBeVisible();
    await page.screenshot({ path: "docs/screenshots/lock-zookeeper.png", fullPage: true });
  });

  test("an etcd election's page shows its revisions and lease, and flags the lease still running after its holder stopped", async ({ page }) => {
    await page.goto(`/locks?${new URLSearchParams({ cluster: ETCD_CLUSTER, key: ETCD_KEY })}`);
    const panel = page.getByLabel("etcd details");
    await expect(panel).toContainText("still running after it stopped");
    await expect(panel).toContainText(/Create revision\s*1207/);
    await expect(panel).toContainText(/Mod revision\s*1207/);
    await expect(panel).toContainText("694d7a1b2c3d4e5f");
    await expect(panel).toContainText(/Lease left\s*(\d+ m )?\d+ s left \(granted 600 s\)/);
    await expect(panel.getByRole("list", { name: "etcd waiters in order" })).toContainText(`${who("etcd-b")} (create revision 1209`);
    const changes = page.getByRole("region", { name: "Changes" });
    await expect(changes.getByRole("row", { name: /lease 694d7a1b2c3d4e5f, create revision 1207, the previous lease had 0 s left/ })).toBeVisible();
    await page.screenshot({ path: "docs/screenshots/lock-etcd.png", fullPage: true });
  });
});
