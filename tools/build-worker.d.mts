/** The node arguments that run the built worker. */
export declare const WORKER_NODE_CONDITIONS: string[];
/** Builds .baton/worker/main.mjs from lib/worker/main.ts; resolves to its path. */
export declare function buildWorker(projectRoot?: string): Promise<string>;
