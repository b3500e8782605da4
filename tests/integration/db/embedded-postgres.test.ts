import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";

import { startEmbeddedPostgres } from "@/lib/db/embedded-postgres";
import { findFreePort } from "@/tools/free-port";

const baseDir = mkdtempSync(path.join(os.tmpdir(), "baton-embedded-"));
afterAll(() => rmSync(baseDir, { recursive: true, force: true }));

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe("embedded PostgreSQL", () => {
  it("keeps its data across a stop and a second start, without re-initialising", async () => {
    const port = await findFreePort();
    const first = await startEmbeddedPostgres({ baseDir, port, database: "baton" });
    expect(first.isShared).toBe(false);
    await query(first.url, "create table kept (v text); insert into kept values ('still here')");
    await first.stop();

    const second = await startEmbeddedPostgres({ baseDir, port, database: "baton" });
    try {
      expect(await query(second.url, "select v from kept")).toEqual([{ v: "still here" }]);
    } finally {
      await second.stop();
    }
  });

  it("shares a server already running on the same data directory instead of starting a second", async () => {
    const port = await findFreePort();
    const owner = await startEmbeddedPostgres({ baseDir, port, database: "baton" });
    try {
      const sharer = await startEmbeddedPostgres({ baseDir, port, database: "baton" });
      expect(sharer.isShared).toBe(true);
      await sharer.stop(); // must not stop the owner's server
      expect(await query(owner.url, "select 1 as ok")).toEqual([{ ok: 1 }]);
    } finally {
      await owner.stop();
    }
  });
});
