// Baton's client for services: the mutual-exclusivity counter around each unit of work, and
// batched reporting of its events to Baton. Depends on nothing of Next or of Baton's server,
// and imports only relative paths, so the folder can be used (or copied) as it is.
export { createExclusivityClient, type ExclusivityClient, type ExclusivityClientOptions, type ExclusivityEntry, type ExclusivityStats } from "./create-exclusivity-client";
export type { CounterBackend } from "./counter-backend";
export type { CounterEvent, EventContext } from "./counter-event";
export { RejectedEventsError } from "./event-reporter";
export { createInProcessCounter } from "./in-process-counter";
export { createRedisCounter, DEFAULT_COUNTER_TTL_MS, type RedisCounterOptions, type RedisLike } from "./redis-counter";
