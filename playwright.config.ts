import { defineConfig } from "@playwright/test";

// `npm test` starts the test database and broker and passes them in the environment; the web
// app under test is a production build served by `next start` on its own port.
const port = Number(process.env.BATON_E2E_PORT ?? 3100);
const baseURL = `http://127.0.0.1:${port}`;

/** A cluster nothing listens on: the e2e tests check that Baton says so. */
// 49151 is IANA-reserved: nothing listens there.
export const UNREACHABLE_CLUSTER = { name: "unreachable", adminUrl: "http://127.0.0.1:49151" };

function e2eClusters(): string {
  const clusters: { name: string; adminUrl: string }[] = [UNREACHABLE_CLUSTER];
  if (process.env.BATON_TEST_PULSAR_ADMIN_URL) clusters.unshift({ name: "test-broker", adminUrl: process.env.BATON_TEST_PULSAR_ADMIN_URL });
  return JSON.stringify(clusters);
}

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
    viewport: { width: 1400, height: 900 },
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.BATON_CHROMIUM ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    },
  },
  webServer: {
    command: `node node_modules/next/dist/bin/next start -H 127.0.0.1 -p ${port}`,
    port,
    reuseExistingServer: false,
    timeout: 60_000,
    env: {
      DATABASE_URL: process.env.BATON_TEST_DATABASE_URL ?? "",
      BATON_CLUSTERS: e2eClusters(),
      NEXT_TELEMETRY_DISABLED: "1",
    },
  },
});
