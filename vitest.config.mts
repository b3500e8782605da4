import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));

// `server-only` throws outside React Server Components; in tests (as in the worker,
// which runs with --conditions=react-server) it must resolve to its empty module.
const alias = {
  "@/": `${root}/`,
  "server-only": `${root}/node_modules/server-only/empty.js`,
};

export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          environment: "node",
          // Vitest's default 5 s is a timed assertion: on a loaded machine a CPU-heavy unit test
          // (10,000 random hash splits, a minute of simulated cycles) took 5.4-8.2 s and failed.
          // The bound only catches a test that hangs.
          testTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          environment: "node",
          globalSetup: ["tests/support/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // Integration tests share one PostgreSQL and one broker; files run one at a time
          // so that broker-timing assertions are not skewed by a neighbour's load.
          fileParallelism: false,
        },
      },
    ],
  },
});
