import "server-only";

// One computation shared by the requests that ask the same question while it runs. During an
// incident many people open the same board, each browser refreshing it every few seconds; at
// 10,000 partitions one answer costs a few hundred milliseconds of database and Node time, so
// without sharing, twenty viewers cost twenty times that. Only a computation still running is
// shared (its reading began less than one computation before the request came); once it is
// complete, the next request computes afresh, so no answer is kept.

export type SharedAnswers<T> = {
  /** The answer for `key` being computed now, or a new computation. */
  get(key: string, compute: () => Promise<T>): Promise<T>;
};

export function createSharedAnswers<T>(): SharedAnswers<T> {
  const inFlight = new Map<string, Promise<T>>();
  return {
    get(key, compute) {
      const running = inFlight.get(key);
      if (running) return running;
      const promise = compute().finally(() => inFlight.delete(key));
      inFlight.set(key, promise);
      return promise;
    },
  };
}
