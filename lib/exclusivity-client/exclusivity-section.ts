import type { OtherInside } from "./counter-backend";
import type { EventContext } from "./counter-event";
import type { CounterOperation, OperationQueue } from "./counter-operation";

/** What `fn` learns about its own entry: the counter it saw and whether that is a violation. */
export type ExclusivityEntry = {
  /** The value before this worker's increment, or null when the counter could not be reached. */
  counter: number | null;
  isViolation: boolean;
};

/** The client a section belongs to. */
export type SectionHost = {
  readonly queue: OperationQueue;
  /** The client's key prefix and service: a section's key is counterKeyPrefix + the caller's key. */
  readonly counterKeyPrefix: string;
  /** This client's part of every entry id (random, so that ids are unique across clients); a sequence number follows. */
  readonly entryIdPrefix: string;
  readonly worker: string;
  /** The enter was answered: count it, report it. */
  recordEntry(key: string, othersCount: number, others: readonly OtherInside[], observedAtMs: number, context: EventContext): void;
  /** The enter or exit failed; for an enter, fn runs all the same (uncounted). */
  counterFailed(operation: "enter" | "exit", key: string, error: unknown): void;
};

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as PromiseLike<unknown>).then === "function";
}

/**
 * One withExclusivity call: its enter, fn, its exit, then its promise settles with fn's result or
 * error. It is the counter operation itself (queued as the enter, then again as the exit) and is
 * called back by the counter, so a unit of work costs one object and the one promise it returns.
 * fn runs when the enter's answer comes (with the other answers of its call), and the exit is
 * queued as soon as fn is done. Nothing here throws at the counter.
 */
export class ExclusivitySection<T> implements CounterOperation {
  isEnter = true;
  keyBytes = -1;
  entryIdBytes = -1;
  /** Whether the enter was recorded (an exit is due). */
  private isInside = false;
  private result: T | undefined = undefined;
  private error: unknown = undefined;
  private hasThrown = false;

  constructor(
    private readonly host: SectionHost,
    readonly key: string,
    readonly entryIdSuffix: string,
    private fn: ((entry: ExclusivityEntry) => T | Promise<T>) | null,
    private context: EventContext | null,
    private resolve: ((value: T) => void) | null,
    private reject: ((error: unknown) => void) | null,
  ) {}

  // The host's, read through: a section in flight holds no more than it must.
  get keyPrefix(): string {
    return this.host.counterKeyPrefix;
  }
  get entryIdPrefix(): string {
    return this.host.entryIdPrefix;
  }
  get worker(): string {
    return this.host.worker;
  }

  entered(othersCount: number, others: readonly OtherInside[], observedAtMs: number): void {
    this.isInside = true;
    this.host.recordEntry(this.key, othersCount, others, observedAtMs, this.context!);
    this.context = null;
    this.run({ counter: othersCount, isViolation: othersCount > 0 });
  }

  exited(): void {
    this.settle();
  }

  failed(error: unknown): void {
    const operation = this.isEnter ? "enter" : "exit";
    this.host.counterFailed(operation, this.key, error);
    // A failed exit: its entry's expiry removes it; fn's own result or error still stands.
    if (operation === "exit") this.settle();
    else this.run({ counter: null, isViolation: false });
  }

  private run(entry: ExclusivityEntry): void {
    const fn = this.fn!;
    // Let go of what is no longer needed as soon as it is not: a section that outlived a garbage
    // collection or two (in old space) keeps whatever it points to from being collected young.
    this.fn = null;
    let value: T | Promise<T>;
    try {
      value = fn(entry);
    } catch (error) {
      this.done(undefined, error, true);
      return;
    }
    if (isThenable(value)) {
      Promise.resolve(value).then(
        (resolved) => this.done(resolved, undefined, false),
        (error: unknown) => this.done(undefined, error, true),
      );
    } else {
      this.done(value, undefined, false);
    }
  }

  private done(result: T | undefined, error: unknown, hasThrown: boolean): void {
    this.result = result;
    this.error = error;
    this.hasThrown = hasThrown;
    if (!this.isInside) {
      this.settle();
      return;
    }
    this.isEnter = false;
    this.host.queue(this);
  }

  private settle(): void {
    const { resolve, reject, result, error } = this;
    this.resolve = null;
    this.reject = null;
    this.result = undefined;
    this.error = undefined;
    if (this.hasThrown) reject!(error);
    else resolve!(result as T);
  }
}
