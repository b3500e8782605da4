// Where the per-key mutual-exclusivity counters live. Both operations must be atomic on the
// backend and return the value after the change: a separate "get, then increment" lets two
// workers both read 0 and both miss the overlap.

export type CounterBackend = {
  /** Adds one to the key's counter and returns the new value (1 = nobody else was inside). */
  increment(key: string): Promise<number>;
  /** Takes one off the key's counter and returns the new value. */
  decrement(key: string): Promise<number>;
};
