/** The node arguments that run the built worker. */
export declare const WORKER_NODE_ARGS: string[];
/** The environment the worker runs with: `env` (default: this process's) and the worker's own defaults under it. */
export declare function workerEnv<Env extends Record<string, string | undefined>>(
  env?: Env,
): Env & { MALLOC_ARENA_MAX: string; MALLOC_MMAP_THRESHOLD_: string; MALLOC_TRIM_THRESHOLD_: string };
/** Builds .baton/worker/main.mjs from lib/worker/main.ts; resolves to its path. */
export declare function buildWorker(projectRoot?: string): Promise<string>;
