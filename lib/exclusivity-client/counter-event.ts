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
};

/** Where the work came from, attached to its event. */
export type EventContext = {
  topic?: string;
  subscription?: string;
  partition?: number;
  traceId?: string;
  attributes?: Record<string, unknown>;
};
