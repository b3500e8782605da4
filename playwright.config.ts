import { defineConfig } from "@playwright/test";

// `npm test` starts the test database and broker and passes them in the environment; the web
// app under test is a production build served by `next start` on its own port.
const port = Number(process.env.BATON_E2E_PORT ?? 3100);
const baseURL = `http://127.0.0.1:${port}`;

/** A cluster nothing listens on: the e2e tests check that Baton says so. */
// 49151 is IANA-reserved: nothing listens there.
export const UNREACHABLE_CLUSTER = { name: "unreachable", adminUrl: "http://127.0.0.1:49151" };

/**
 * The broker of the leaders e2e (tests/e2e/leaders.spec.ts): that test starts it and stops it
 * (the shared test broker must not be stopped under other tests), on fixed ports next to the
 * web app's, so that the web server and the worker below know its cluster from the start.
 * The worker polls it fast; until the test starts it, its polls fail and cost nothing.
 */
export const LEADERS_E2E_BROKER = { cluster: "e2e-leaders", webPort: port + 1, brokerPort: port + 2, pollIntervalMs: 500 };
const leadersCluster = {
  name: LEADERS_E2E_BROKER.cluster,
  adminUrl: `http://127.0.0.1:${LEADERS_E2E_BROKER.webPort}`,
  pollIntervalMs: LEADERS_E2E_BROKER.pollIntervalMs,
  discoveryIntervalMs: 1000,
  requestTimeoutMs: 2000,
};

/**
 * The locks e2e's cluster: a Redis cluster that nothing polls and that answers nowhere (port 9
 * refuses), so the locks tests/e2e/locks.spec.ts seeds into the database (as the poller writes
 * them) stay as seeded.
 */
export const LOCKS_E2E_CLUSTER = {
  kind: "redis",
  name: "e2e-locks",
  url: "redis://127.0.0.1:9",
  patterns: [{ match: "lock:*" }, { match: "leader:*", layout: "redisson", mustBeHeld: true }],
};

/**
 * The locks e2e's ZooKeeper and etcd clusters, for each kind's own details: like the Redis one,
 * nothing polls them and they answer nowhere; the test seeds their locks.
 */
export const LOCKS_E2E_ZOOKEEPER_CLUSTER = {
  kind: "zookeeper",
  name: "e2e-zk-locks",
  connectString: "127.0.0.1:9",
  paths: [{ path: "/e2e/leader", recipe: "curator-leader-latch", mustBeHeld: true }],
};
export const LOCKS_E2E_ETCD_CLUSTER = {
  kind: "etcd",
  name: "e2e-etcd-locks",
  endpoints: ["http://127.0.0.1:9"],
  prefixes: [{ prefix: "elections/", layout: "go-election", mustBeHeld: true }],
};

/**
 * The prefix of the live locks' keys: the web app's port in it, so that two e2e runs on one
 * machine (another checkout's, a CI run beside a developer's) never poll each other's locks and
 * fire alerts on them.
 */
export const LIVE_LOCKS_E2E_PREFIX = `baton-e2e-live-${port}:`;

/**
 * The health e2e's live locks (tests/e2e/health.spec.ts): the machine's Redis, polled by the
 * worker below, so that its poller records a real expiry while held and its evaluator fires and
 * resolves the alert. Only keys under this prefix are read; each run's keys are its own.
 */
export const LIVE_LOCKS_E2E_CLUSTER = {
  kind: "redis",
  name: "e2e-live-locks",
  url: "redis://127.0.0.1:6379",
  // A leader election, as the demo's scheduler:leader: held for good, so never "stuck".
  patterns: [{ match: `${LIVE_LOCKS_E2E_PREFIX}*`, mustBeHeld: true }],
  pollIntervalMs: 500,
  discoveryIntervalMs: 1_000,
};

function e2eClusters(): string {
  const clusters: object[] = [
    UNREACHABLE_CLUSTER,
    leadersCluster,
    LOCKS_E2E_CLUSTER,
    LOCKS_E2E_ZOOKEEPER_CLUSTER,
    LOCKS_E2E_ETCD_CLUSTER,
    LIVE_LOCKS_E2E_CLUSTER,
  ];
  if (process.env.BATON_TEST_PULSAR_ADMIN_URL) clusters.unshift({ name: "test-broker", adminUrl: process.env.BATON_TEST_PULSAR_ADMIN_URL });
  return JSON.stringify(clusters);
}

const databaseUrl = process.env.BATON_TEST_DATABASE_URL ?? "";

export default defineConfig({
  testDir: "tests/e2e",
  outputDir: "test-results/e2e",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [["list"], ["json", { outputFile: "test-results/e2e-report.json" }]],
  use: {
    baseURL,
    browserName: "chromium",
    // The window every page must fit (tests/e2e/fits-and-finds.spec.ts), and the size of every
    // screenshot the tests take for docs/.
    viewport: { width: 1280, height: 800 },
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.BATON_CHROMIUM ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  webServer: [
    {
      name: "web",
      command: `node node_modules/next/dist/bin/next start -H 127.0.0.1 -p ${port}`,
      port,
      reuseExistingServer: false,
      timeout: 60_000,
      env: {
        DATABASE_URL: databaseUrl,
        BATON_CLUSTERS: e2eClusters(),
        // The violations e2e checks that trace ids become links through this template.
        BATON_TRACE_URL_TEMPLATE: "http://127.0.0.1:16686/trace/{traceId}",
        NEXT_TELEMETRY_DISABLED: "1",
      },
    },
    {
      // Baton's worker, as `npm start` runs it beside the web app: it polls the leaders e2e's
      // broker and the health e2e's live locks only (the shared test broker is nobody's to poll here).
      name: "worker",
      command: "npm run worker",
      // The fleet logs each lease it takes (lib/poller/fleet/replica-leases.ts).
      wait: { stdout: /lease taken: / },
      reuseExistingServer: false,
      timeout: 60_000,
      env: {
        DATABASE_URL: databaseUrl,
        BATON_CLUSTERS: JSON.stringify([leadersCluster, LIVE_LOCKS_E2E_CLUSTER]),
      },
    },
  ],
});
