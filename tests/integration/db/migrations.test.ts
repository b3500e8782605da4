import { afterAll, describe, expect, it } from "vitest";

import { applyMigrations, diffEmptyToSchema, listMigrations } from "@/lib/db/migrate";
import { describeSchema, executeScript } from "@/tests/support/describe-schema";
import { createScratchDatabase, getTestDatabaseUrl } from "@/tests/support/test-database";

const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});

async function scratch(prefix: string): Promise<string> {
  const database = await createScratchDatabase(getTestDatabaseUrl(), prefix);
  drops.push(database.drop);
  return database.url;
}

describe("migrations (offline, WebAssembly schema engine)", () => {
  it("apply every migration once, record them as prisma migrate deploy does, and apply nothing the second time", async () => {
    const url = await scratch("migrate_once");
    const names = (await listMigrations()).migrationDirectories.map((m) => m.path);
    expect(names.length).toBeGreaterThan(0);
    expect(await applyMigrations(url)).toEqual(names);
    expect(await applyMigrations(url)).toEqual([]);

    const { Client } = (await import("pg")).default;
    const client = new Client({ connectionString: url });
    await client.connect();
    const recorded = await client.query<{ migration_name: string; finished_at: Date | null }>(
      "select migration_name, finished_at from _prisma_migrations order by migration_name",
    );
    await client.end();
    expect(recorded.rows.map((r) => r.migration_name)).toEqual(names);
    expect(recorded.rows.every((r) => r.finished_at !== null)).toBe(true);
  });

  it("produce exactly what schema.prisma describes (no drift)", async () => {
    const migrated = await scratch("drift_migrated");
    await applyMigrations(migrated);

    const fromSchema = await scratch("drift_schema");
    await executeScript(fromSchema, await diffEmptyToSchema(fromSchema));

    const expected = await describeSchema(fromSchema);
    expect(expected.columns.length).toBeGreaterThan(50);
    expect(await describeSchema(migrated)).toEqual(expected);
  });

  it("detect drift: a schema change without a migration differs", async () => {
    // Proves the comparison above can fail: a column dropped after migrating must show.
    const migrated = await scratch("drift_detect");
    await applyMigrations(migrated);
    const before = await describeSchema(migrated);
    await executeScript(migrated, "alter table deployment drop column link");
    expect(await describeSchema(migrated)).not.toEqual(before);
  });
});
