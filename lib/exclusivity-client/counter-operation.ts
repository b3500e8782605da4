import type { CounterBackend, OtherInside } from "./counter-backend";

/**
 * One unit of work's enter, then the same object as its exit, as a counter takes it: the counter
 * calls it back with the answer instead of settling a promise per operation (the Redis counter
 * answers a whole script call in one loop). An exit is queued only once its enter was answered,
 * so the object is never queued twice at once.
 *
 * The key and the entry id come in parts, each joined only by whoever needs them whole: the Redis
 * counter writes the parts into its request as they are. A busy consumer keeps hundreds of
 * operations in flight, and every garbage collection copies what they hold; strings joined,
 * flattened and encoded for each of them were the larger part of that.
 */
export interface CounterOperation {
  /** True while this is the enter; false once it is queued again as the exit. */
  isEnter: boolean;
  /** The key as the backend names it is keyPrefix + key (the client's prefix and service, then the caller's key). */
  readonly keyPrefix: string;
  readonly key: string;
  /** The entry id is entryIdPrefix + entryIdSuffix. */
  readonly entryIdPrefix: string;
  readonly entryIdSuffix: string;
  readonly worker: string;
  /** The counter's own note for the exit (the Redis counter's: the key's and id's UTF-8 lengths); -1 until it writes one. */
  keyBytes: number;
  entryIdBytes: number;
  /**
   * The enter ran: `othersCount` others were inside, `others` the longest-inside of them (a shared
   * empty array when there were none). `observedAtMs`: this worker's clock when the answer came.
   */
  entered(othersCount: number, others: readonly OtherInside[], observedAtMs: number): void;
  exited(): void;
  /** The enter or exit failed (its call failed, or its reply was malformed). */
  failed(error: unknown): void;
}

/** Takes an operation and, once the backend answers, calls it back. Never throws. */
export type OperationQueue = (operation: CounterOperation) => void;

/** Where a backend that queues operations itself (createRedisCounter) keeps its queue. */
export const OPERATION_QUEUE: unique symbol = Symbol("baton.exclusivity.operationQueue");

export type QueueingCounterBackend = CounterBackend & { readonly [OPERATION_QUEUE]: OperationQueue };

export const NO_OTHERS: readonly OtherInside[] = Object.freeze([]);

export const counterKeyOf = (operation: CounterOperation) => operation.keyPrefix + operation.key;
export const entryIdOf = (operation: CounterOperation) => operation.entryIdPrefix + operation.entryIdSuffix;

/** Runs `start`; what it answers goes to `answered`, what it throws or rejects with to `operation.failed`. */
function settleInto<R>(operation: CounterOperation, start: () => Promise<R>, answered: (result: R) => void): void {
  let pending: Promise<R>;
  try {
    pending = Promise.resolve(start());
  } catch (error) {
    pending = Promise.reject(error);
  }
  pending.then(answered, (error: unknown) => operation.failed(error));
}

/** The queue of a backend: its own (the Redis counter's), or one promise per operation for any other. */
export function operationQueueOf(backend: CounterBackend): OperationQueue {
  const own = (backend as Partial<QueueingCounterBackend>)[OPERATION_QUEUE];
  if (own) return own;
  return (operation) => {
    const key = counterKeyOf(operation);
    if (operation.isEnter) {
      settleInto(
        operation,
        () => backend.enter(key, { entryId: entryIdOf(operation), worker: operation.worker }),
        (result) => operation.entered(result.othersCount, result.others, Date.now()),
      );
    } else {
      settleInto(
        operation,
        () => backend.exit(key, entryIdOf(operation)),
        () => operation.exited(),
      );
    }
  };
}
