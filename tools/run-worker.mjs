// `npm run worker`: builds the worker (tools/build-worker.mjs) and runs it alone, with the node
// arguments and environment `npm start` gives it. SIGINT and SIGTERM are passed on to it, and
// this exits with its code.
import { spawn } from "node:child_process";

import { buildWorker, WORKER_NODE_ARGS, workerEnv } from "./build-worker.mjs";

const module = await buildWorker();
const worker = spawn(process.execPath, [...WORKER_NODE_ARGS, module], { env: workerEnv(), stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => worker.kill(signal));
worker.once("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
