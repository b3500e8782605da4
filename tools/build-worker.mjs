// Compiles the background worker (lib/worker/main.ts and what it imports from lib/) into one
// JavaScript module, .baton/worker/main.mjs, that plain node runs: no TypeScript loader in the
// process. Through tsx the worker carried tsx's compiler and its loader thread, about 40 MB of
// its memory (docs/scale.md, "The worker's memory"). Packages stay in node_modules (not bundled).
// The client libraries of the lock kinds (ioredis, node-zookeeper-client, the AWS SDK) are split
// into chunks beside it, loaded only when a cluster of that kind is configured.
// `npm start` and `npm run worker` build it each time they start (a fraction of a second).
// Run alone: node tools/build-worker.mjs (prints the module's path).
import { build } from "esbuild";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The node arguments that run the built worker. The "react-server" condition lets `server-only`
 * load. A young generation of 2 MB semi-spaces instead of V8's 16: the worker's short-lived
 * garbage (stats answers, scrape lines, row digests) is collected as often as it comes, and the
 * up to 32 MB the larger semi-spaces kept resident are not (docs/scale.md, "The worker's memory").
 */
export const WORKER_NODE_ARGS = ["--conditions=react-server", "--max-semi-space-size=2"];

/**
 * The worker's environment: glibc's malloc tuned to give back what it freed, unless the operator
 * chose otherwise. By default it makes up to eight arenas per core (one for each thread that
 * allocates at once) and, once a large block was freed, raises its mmap and trim thresholds to as
 * much as 32 and 64 MB, so that freed memory stays in the process: 36-48 MB of the worker's at
 * 10,000 partition-subscriptions, 11-27 MB with these (docs/scale.md, "The worker's memory").
 * Two arenas, and fixed thresholds of 128 KB: blocks that large are mapped and unmapped, and a
 * free top of the heap past 128 KB is returned.
 */
export function workerEnv(env = process.env) {
  return { MALLOC_ARENA_MAX: "2", MALLOC_MMAP_THRESHOLD_: "131072", MALLOC_TRIM_THRESHOLD_: "131072", ...env };
}

/**
 * Builds the worker module; resolves to its path. Each file is written under another name and
 * renamed into place, so that a worker starting meanwhile reads the old module or the new one,
 * never half of one.
 */
export async function buildWorker(projectRoot = root) {
  const outdir = path.join(projectRoot, ".baton", "worker");
  const { outputFiles } = await build({
    absWorkingDir: projectRoot,
    entryPoints: [path.join(projectRoot, "lib", "worker", "main.ts")],
    outdir,
    entryNames: "main",
    chunkNames: "chunks/[name]-[hash]",
    outExtension: { ".js": ".mjs" },
    splitting: true,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    conditions: ["react-server"],
    tsconfig: path.join(projectRoot, "tsconfig.json"),
    // A linked map for reading a stack trace against the sources; node does not load it.
    sourcemap: "linked",
    logLevel: "warning",
    write: false,
  });
  const outfile = path.join(outdir, "main.mjs");
  // The chunks first, the module that imports them last. Chunks are named by their content: one a
  // running worker may still load is never replaced by another.
  const ordered = [...outputFiles].sort((a, b) => Number(a.path.startsWith(outfile)) - Number(b.path.startsWith(outfile)));
  for (const file of ordered) {
    mkdirSync(path.dirname(file.path), { recursive: true });
    const partial = `${file.path}.${process.pid}.partial`;
    writeFileSync(partial, file.contents);
    renameSync(partial, file.path);
  }
  return outfile;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // No top-level await: tools/start.ts loads this module through tsx, which may compile it to CommonJS.
  buildWorker().then((module) => console.log(module));
}
