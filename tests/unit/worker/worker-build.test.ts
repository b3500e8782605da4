import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";

import { describe, expect, it } from "vitest";

import { workerEnv } from "@/tools/build-worker.mjs";
import { findFreePort } from "@/tools/free-port";
import { workerNodeArgs } from "@/tests/support/worker-process";

const run = promisify(execFile);

/**
 * The packages the built worker imports when it starts (the bundle leaves node_modules out): those
 * of its module and of the chunks that module imports statically, not of chunks loaded on demand.
 */
function importedPackages(module: string, seen = new Set<string>()): Set<string> {
  seen.add(module);
  const source = readFileSync(module, "utf8");
  const specifiers = [...source.matchAll(/^import\s[^;]*?from\s*"([^"]+)";$/gm), ...source.matchAll(/^import\s*"([^"]+)";$/gm)].map((m) => m[1]!);
  const packages = new Set<string>();
  for (const specifier of specifiers) {
    if (!specifier.startsWith(".")) packages.add(specifier);
    else if (!seen.has(path.resolve(path.dirname(module), specifier)))
      for (const p of importedPackages(path.resolve(path.dirname(module), specifier), seen)) packages.add(p);
  }
  return packages;
}

describe("the built worker", () => {
  it("runs its SQL through pg and never loads the Prisma client or its query compiler", async () => {
    const module = (await workerNodeArgs()).at(-1);
    const packages = importedPackages(module!);
    expect(packages).toContain("pg");
    expect(packages).toContain("@prisma/client-runtime-utils");
    expect([...packages].filter((p) => p.startsWith("@prisma/client/") || p === "@prisma/client" || p === "@prisma/adapter-pg")).toEqual([]);
    // The lock kinds' client libraries load with a cluster of their kind, not at start.
    expect([...packages].filter((p) => ["ioredis", "node-zookeeper-client", "@aws-sdk/client-dynamodb", "mysql2/promise"].includes(p))).toEqual([]);
    // Nothing TypeScript is left for a loader to compile.
    expect(readFileSync(module!, "utf8")).not.toMatch(/from "@\/lib\//);
  }, 60_000);

  it("orders and counts without ICU: no collation, and no Intl object made at start", async () => {
    const module = (await workerNodeArgs()).at(-1);
    // ICU's data is mapped from the node binary and stays resident once touched: about 10 MB of
    // the worker's memory for sorting topic names (docs/scale.md, "The worker's memory").
    const source = readFileSync(module!, "utf8");
    expect(source).not.toMatch(/\.localeCompare\(/);
    expect(source).not.toMatch(/^(var|let|const) \w+ = new Intl\./m);
  }, 60_000);

  it("runs with the node arguments and environment that keep its memory down, and lets the operator choose the arenas", async () => {
    const args = await workerNodeArgs();
    expect(args).toContain("--max-semi-space-size=2");
    expect(workerEnv({})).toEqual({ MALLOC_ARENA_MAX: "2", MALLOC_MMAP_THRESHOLD_: "131072", MALLOC_TRIM_THRESHOLD_: "131072" });
    expect(workerEnv({ MALLOC_ARENA_MAX: "4", PATH: "/bin" })).toMatchObject({ MALLOC_ARENA_MAX: "4", MALLOC_TRIM_THRESHOLD_: "131072", PATH: "/bin" });
  });

  it("starts under plain node and says why it cannot run when the database refuses", async () => {
    const port = await findFreePort();
    const failure = await run(process.execPath, await workerNodeArgs(), {
      env: { ...process.env, DATABASE_URL: `postgresql://baton@127.0.0.1:${port}/baton`, BATON_CLUSTERS: "[]" },
    }).then(
      () => null,
      (error: Error & { code?: number; stderr?: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toMatch(/^\[worker\] cannot run: .*ECONNREFUSED/m);
  }, 60_000);
});
