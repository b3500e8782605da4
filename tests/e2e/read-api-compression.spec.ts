import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { type IncomingHttpHeaders, request as httpRequest } from "node:http";
import path from "node:path";
import { gunzipSync } from "node:zlib";

import { expect, test } from "@playwright/test";
import pg from "pg";

import { UNREACHABLE_CLUSTER } from "../../playwright.config";

// The read API's large answers on the wire, as `next start` sends them: gzipped and labelled
// `content-encoding: gzip` to a client that accepts gzip (browsers, curl --compressed, Go's HTTP
// client), plain JSON to one that does not, and read by Chromium as the board reads them.
// A route handler that gzips for itself sends gzip bytes labelled as plain JSON: Next drops a
// Response's Content-Encoding header (next.config.js says how Next compresses them instead).
//
// The board is seeded the way the poller writes it, into the cluster that the web server knows
// and nothing polls, under tenant names of this run; what it wrote is removed afterwards.

const ROOT = process.cwd();
const RUN = randomUUID().slice(0, 8);
const TENANT_PREFIX = `e2e-gzip-${RUN}`;
const CLUSTER = UNREACHABLE_CLUSTER.name;
/** 200 subscription partitions: about 100 KB of board JSON, over any compression threshold. */
const RESOURCES = 200;
const LEADERS_PATH = `/api/v1/leaders?cluster=${CLUSTER}`;

/** Baton's server modules need the react-server condition, which Playwright's workers lack. */
const SEED_SCRIPT = `
const { createDb } = require(${JSON.stringify(path.join(ROOT, "lib/db/client.ts"))});
const { seedBoard } = require(${JSON.stringify(path.join(ROOT, "tests/bench/board-seed.ts"))});
const db = createDb(process.env.DATABASE_URL);
seedBoard(db, JSON.parse(process.env.SEED_OPTIONS))
  .finally(() => db.$disconnect())
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });
`;

function databaseUrl(): string {
  const url = process.env.BATON_TEST_DATABASE_URL;
  if (!url) throw new Error("BATON_TEST_DATABASE_URL is not set: run the browser tests with npm test");
  if (!["127.0.0.1", "localhost"].includes(new URL(url).hostname)) throw new Error("the e2e tests refuse a non-local database");
  return url;
}

type BoardAnswer = { subscriptions: { cluster: string; tenant: string; partitions: unknown[] }[] };

/** This run's seeded subscription partitions in a board answer. */
function seededPartitions(board: BoardAnswer): number {
  return board.subscriptions.filter((s) => s.cluster === CLUSTER && s.tenant.startsWith(`${TENANT_PREFIX}-`)).reduce((sum, s) => sum + s.partitions.length, 0);
}

type RawAnswer = { status: number; headers: IncomingHttpHeaders; body: Buffer };

/** A GET that leaves the body as it came over the wire (Node's http client decodes nothing). */
function getRaw(url: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end();
  });
}

test.describe("the read API's large answers on the wire", () => {
  test.describe.configure({ mode: "serial" });

  let db: pg.Client;
  let hadCluster = false;

  test.beforeAll(async () => {
    db = new pg.Client({ connectionString: databaseUrl() });
    await db.connect();
    hadCluster = (await db.query("select 1 from cluster where name = $1", [CLUSTER])).rowCount === 1;
    execFileSync(process.execPath, ["--conditions=react-server", "--import", "tsx", "-e", SEED_SCRIPT], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl(),
        SEED_OPTIONS: JSON.stringify({
          cluster: CLUSTER,
          resources: RESOURCES,
          partitionsPerTopic: 4,
          changes: 50,
          recentChanges: 5,
          tenantPrefix: TENANT_PREFIX,
        }),
      },
      stdio: ["ignore", "inherit", "inherit"],
    });
  });

  test.afterAll(async () => {
    if (!db) return;
    if (hadCluster) {
      // Holder changes go with their resources (on delete cascade); the seed's lease and poll run are the poller id "bench"'s.
      await db.query("delete from held_resource where cluster_id = (select id from cluster where name = $1) and tenant like $2", [
        CLUSTER,
        `${TENANT_PREFIX}-%`,
      ]);
      await db.query("delete from poll_run where cluster_id = (select id from cluster where name = $1) and poller_id = 'bench'", [CLUSTER]);
      await db.query("delete from poller_lease where cluster_id = (select id from cluster where name = $1) and poller_id = 'bench'", [CLUSTER]);
    } else {
      await db.query("delete from cluster where name = $1", [CLUSTER]);
    }
    await db.end();
  });

  test("a client that accepts gzip gets gzip bytes labelled content-encoding: gzip", async ({ baseURL }) => {
    const answer = await getRaw(`${baseURL}${LEADERS_PATH}`, { "accept-encoding": "gzip" });
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/json");
    expect(answer.headers["content-encoding"]).toBe("gzip");
    expect(answer.headers.vary).toMatch(/accept-encoding/i);
    const json = gunzipSync(answer.body).toString("utf8");
    expect(seededPartitions(JSON.parse(json) as BoardAnswer)).toBe(RESOURCES);
    // Well over 32 KB of JSON, and much less on the wire.
    expect(json.length).toBeGreaterThan(64 * 1024);
    expect(answer.body.length).toBeLessThan(json.length / 4);
  });

  test("a client that does not accept compression gets plain JSON", async ({ baseURL }) => {
    const answer = await getRaw(`${baseURL}${LEADERS_PATH}`, { "accept-encoding": "identity" });
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/json");
    expect(answer.headers["content-encoding"]).toBeUndefined();
    expect(seededPartitions(JSON.parse(answer.body.toString("utf8")) as BoardAnswer)).toBe(RESOURCES);
  });

  test("Chromium reads the answer, in a fetch and in the board's own refresh", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1, name: "Leaders" })).toBeVisible();
    const fetched = await page.evaluate(async (url) => {
      const response = await fetch(url, { headers: { accept: "application/json" } });
      return { encoding: response.headers.get("content-encoding"), board: (await response.json()) as unknown };
    }, LEADERS_PATH);
    expect(fetched.encoding).toBe("gzip");
    expect(seededPartitions(fetched.board as BoardAnswer)).toBe(RESOURCES);

    // The board refreshes every few seconds from GET /api/v1/leaders (every configured cluster).
    const refresh = await page.waitForResponse((response) => new URL(response.url()).pathname === "/api/v1/leaders");
    expect(refresh.status()).toBe(200);
    expect(await refresh.headerValue("content-encoding")).toBe("gzip");
    expect(seededPartitions((await refresh.json()) as BoardAnswer)).toBe(RESOURCES);
  });
});
