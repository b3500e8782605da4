import "server-only";

import v8 from "node:v8";

/**
 * V8 lets a process that allocates fast grow its heap to about four times what is live before a
 * full collection. The worker allocates a cycle's worth of stats and rows every few seconds
 * around a live set of 75-92 MB at 10,000 partition-subscriptions, and its heap grew to 330-370
 * MB. A growing factor of 1.5 kept it at 154-179 MB for 2-3 points of a core more CPU
 * (docs/scale.md, "The worker's memory"). It is a growth rule, not a cap: a larger live set still
 * gets the room it needs.
 */
const HEAP_GROWING_PERCENT = 50;
const FLAG = "--heap-growing-percent";

/** Sets the worker's heap growth unless the node command line chose one (NODE_OPTIONS may not). */
export function limitHeapGrowth(execArgv: string[] = process.execArgv): boolean {
  const isChosen = execArgv.some((arg) => arg.startsWith(FLAG));
  if (!isChosen) v8.setFlagsFromString(`${FLAG}=${HEAP_GROWING_PERCENT}`);
  return !isChosen;
}
