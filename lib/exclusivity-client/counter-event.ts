/** One counter event as Baton's POST /api/v1/exclusivity-events takes it. */
export type CounterEvent = {
  /** A UUID: a batch sent twice (a retry) is written once. */
  id: string;
  key: string;
  /** What the counter held before this increment: > 0 means another worker was inside. */
  counter: number;
  service: string;
  worker: string;
  topic?: string;
  subscription?: string;
  partition?: number;
  traceId?: string;
  /** Epoch milliseconds of the increment. */
  observedAt: number;
  attributes?: Record<string, unknown>;
  /**
   * On a violation: the workers inside the key when this one entered (at most
   * MAX_OTHERS_INSIDE, longest-inside first), with their entry times in epoch milliseconds on
   * this worker's clock. Absent on other events.
   */
  othersInside?: OtherInsideEvent[];
  /** The lock the work ran under, "<cluster>/<lock key>" as Baton's configuration names them. */
  lock?: string;
};

/** Another worker inside the key, as a violation event carries it. */
export type OtherInsideEvent = { worker: string; enteredAt: number };

/** Where the work came from, attached to its event. */
export type EventContext = {
  topic?: string;
  subscription?: string;
  partition?: number;
  traceId?: string;
  attributes?: Record<string, unknown>;
  /**
   * The lock the work ran under, "<cluster>/<lock key>" (e.g. "redis-main/lock:daily-job"): a
   * violation's drill-down then shows that lock's holder changes (an expiry while held, a
   * takeover) around it.
   */
  lock?: string;
};
