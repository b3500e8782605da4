// After `npm install`/`npm ci`: generate the Prisma client and put the schema engine's
// WebAssembly module where @prisma/internals loads it from (it is not shipped there).
// Both work offline; neither needs Prisma's native engines.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");

function copySchemaEngineWasm() {
  const wasmPackageDir = path.dirname(require.resolve("@prisma/schema-engine-wasm", { paths: [root] }));
  const from = path.join(wasmPackageDir, "schema_engine_bg.wasm");
  // The copy of @prisma/internals that @prisma/migrate loads; it reads <its dist>/../build.
  const migrateDir = path.dirname(require.resolve("@prisma/migrate", { paths: [root] }));
  const internalsDist = path.dirname(require.resolve("@prisma/internals", { paths: [migrateDir] }));
  const buildDir = path.join(internalsDist, "..", "build");
  mkdirSync(buildDir, { recursive: true });
  copyFileSync(from, path.join(buildDir, "schema_engine_bg.wasm"));
}

function generatePrismaClient() {
  // `prisma generate` looks for a native schema engine first and fails offline when it cannot
  // download one, although generating the client never runs it. Point it at any existing file
  // unless the user chose an engine. Only for generate: never for migrate (see lib/db/migrate.ts).
  const env = { ...process.env };
  if (!env.PRISMA_SCHEMA_ENGINE_BINARY || !existsSync(env.PRISMA_SCHEMA_ENGINE_BINARY)) {
    env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
  }
  execFileSync(process.execPath, [require.resolve("prisma/build/index.js", { paths: [root] }), "generate"], {
    cwd: root,
    env,
    stdio: ["ignore", "inherit", "inherit"],
  });
}

copySchemaEngineWasm();
generatePrismaClient();
