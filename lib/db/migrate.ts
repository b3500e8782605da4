import "server-only";

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";

import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";

// Prisma's `migrate deploy` needs a native schema engine downloaded from outside the npm
// registry. The same engine ships as WebAssembly (@prisma/schema-engine-wasm, pinned to the
// build that matches @prisma/migrate 7.10.0); this module drives it directly so migrations
// apply offline, with the same bookkeeping (`_prisma_migrations`) as `prisma migrate deploy`.
// tests/integration/db/migrations.test.ts proves the result matches schema.prisma.

// npm scripts, the launcher and the tests all run from the project root.
const PROJECT_ROOT = process.cwd();
export const MIGRATIONS_DIR = path.join(PROJECT_ROOT, "prisma", "migrations");
export const SCHEMA_PATH = path.join(PROJECT_ROOT, "prisma", "schema.prisma");

type SchemaFile = { path: string; content: string };
type DiffTarget = { tag: "empty" } | { tag: "schemaDatamodel"; files: SchemaFile[] } | ({ tag: "migrations" } & MigrationList);

type MigrationList = {
  baseDir: string;
  lockfile: { path: string; content: string | null };
  migrationDirectories: { path: string; migrationFile: { path: string; content: { tag: "ok"; value: string } } }[];
  shadowDbInitScript: string;
};

type SchemaEngine = {
  applyMigrations(input: { migrationsList: MigrationList; filters: Filters }): Promise<{ appliedMigrationNames: string[] }>;
  // `migrateDiff` prints the script to process.stdout; the underlying command returns it.
  runCommand(
    command: "diff",
    input: { from: DiffTarget; to: DiffTarget; script: boolean; exitCode: null; filters: Filters },
  ): Promise<{ exitCode: number; stdout: string }>;
  stop(): Promise<void>;
};
type Filters = { externalTables: string[]; externalEnums: string[] };

const NO_FILTERS: Filters = { externalTables: [], externalEnums: [] };

async function loadSchemaEngineClass(): Promise<{ setup(input: unknown): Promise<SchemaEngine> }> {
  // @prisma/migrate is CommonJS and exposes SchemaEngineWasm on its default export only.
  const require = createRequire(path.join(PROJECT_ROOT, "package.json"));
  const migrate = require("@prisma/migrate") as { SchemaEngineWasm: { setup(input: unknown): Promise<SchemaEngine> } };
  return migrate.SchemaEngineWasm;
}

async function readSchemaFiles(): Promise<SchemaFile[]> {
  return [{ path: SCHEMA_PATH, content: await readFile(SCHEMA_PATH, "utf8") }];
}

async function withSchemaEngine<T>(databaseUrl: string, run: (engine: SchemaEngine) => Promise<T>): Promise<T> {
  const SchemaEngineWasm = await loadSchemaEngineClass();
  // A short idle timeout lets the process exit once the engine is done with its pool.
  const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPg({ connectionString: databaseUrl, idleTimeoutMillis: 100 }));
  const engine = await SchemaEngineWasm.setup({ adapter, schemaContext: { schemaFiles: (await readSchemaFiles()).map((f) => [f.path, f.content]) } });
  try {
    return await run(engine);
  } finally {
    await engine.stop();
  }
}

export async function listMigrations(migrationsDir = MIGRATIONS_DIR): Promise<MigrationList> {
  const { readdir } = await import("node:fs/promises");
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  const directories = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const lockfileContent = await readFile(path.join(migrationsDir, "migration_lock.toml"), "utf8").catch(() => null);
  return {
    baseDir: migrationsDir,
    lockfile: { path: "migration_lock.toml", content: lockfileContent },
    migrationDirectories: await Promise.all(
      directories.map(async (name) => ({
        path: name,
        migrationFile: {
          path: "migration.sql",
          content: { tag: "ok" as const, value: await readFile(path.join(migrationsDir, name, "migration.sql"), "utf8") },
        },
      })),
    ),
    shadowDbInitScript: "",
  };
}

/**
 * Applies every pending migration in prisma/migrations (or another directory of migrations: the
 * old-layout benchmarks and the migration test apply a prefix of them); returns the names applied now.
 */
export async function applyMigrations(databaseUrl: string, migrationsDir = MIGRATIONS_DIR): Promise<string[]> {
  const migrationsList = await listMigrations(migrationsDir);
  const result = await withSchemaEngine(databaseUrl, (engine) => engine.applyMigrations({ migrationsList, filters: NO_FILTERS }));
  return result.appliedMigrationNames;
}

/**
 * The SQL that creates what schema.prisma describes from an empty database: used to write a
 * new migration and, in the drift test, to build the reference database.
 */
export async function diffEmptyToSchema(databaseUrl: string): Promise<string> {
  const files = await readSchemaFiles();
  const result = await withSchemaEngine(databaseUrl, (engine) =>
    engine.runCommand("diff", { from: { tag: "empty" }, to: { tag: "schemaDatamodel", files }, script: true, exitCode: null, filters: NO_FILTERS }),
  );
  return result.stdout;
}
