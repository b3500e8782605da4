import { buildWorker, WORKER_NODE_ARGS } from "@/tools/build-worker.mjs";

let built: Promise<string> | undefined;

/**
 * The node arguments that run the worker as `npm start` runs it: plain node on the module
 * tools/build-worker.mjs compiles (built once per test process, from the sources as they are).
 */
export async function workerNodeArgs(): Promise<string[]> {
  built ??= buildWorker();
  return [...WORKER_NODE_ARGS, await built];
}
