import "server-only";

/** Collections asked for by the worker are at least this far apart, however many clusters sweep. */
export const MIN_COLLECTION_INTERVAL_MS = 10_000;

/**
 * A full garbage collection right after a sweep was saved: the moment when least is live (the
 * previous states are garbage, the next sweep's answers not read yet). V8 sizes its old
 * generation from what a collection finds live (times 1.5: limit-heap-growth.ts); left to
 * itself it collects wherever that limit is reached, often late in a sweep with a sweep's answers
 * and two generations of states live, and sizes the heap from that. Collecting at the low-water
 * mark sizes it from the states alone, and one sweep's garbage fits in the room above them
 * (docs/scale.md, "The worker's memory"). About 50-100 ms at 10,000 partition-subscriptions,
 * at most once every MIN_COLLECTION_INTERVAL_MS. Only where node exposes `gc` (the worker runs
 * with --expose-gc: WORKER_NODE_ARGS); elsewhere, and too soon after the last one, it does
 * nothing. Returns whether it collected.
 */
export function createLowWaterCollector(gc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc, now: () => number = Date.now): () => boolean {
  let lastAtMs = Number.NEGATIVE_INFINITY;
  return () => {
    if (gc === undefined || now() - lastAtMs < MIN_COLLECTION_INTERVAL_MS) return false;
    lastAtMs = now();
    gc();
    return true;
  };
}
