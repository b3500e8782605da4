// Baton's client for services: the mutual-exclusivity counter around each unit of work, and
// batched reporting of its events to Baton. Depends on nothing of Next or of Baton's server,
// and imports only relative paths, so the folder can be used (or copied) as it is.
export {
  createExclusivityClient,
  type ExclusivityClient,
  type ExclusivityClientOptions,
  type ExclusivityEntry,
  type ExclusivityStats,
  type ReportingMode,
} from "./create-exclusivity-client";
export { type CounterBackend, type EntryResult, MAX_OTHERS_INSIDE, type OtherInside } from "./counter-backend";
export type { CounterEvent, EventContext, OtherInsideEvent } from "./counter-event";
export { type CountGroup, type CountsBody, MAX_COUNT_GROUPS } from "./counts-body";
export { RejectedEventsError } from "./event-reporter";
export { createInProcessCounter, type InProcessCounterOptions } from "./in-process-counter";
export { createRedisCounter, DEFAULT_COUNTER_TTL_MS, INSIDE_KEY_SUFFIX, type RedisCounterOptions, type RedisLike } from "./redis-counter";
