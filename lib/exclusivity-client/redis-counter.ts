import type { EntryResult, OtherInside } from "./counter-backend";
import { type CounterOperation, NO_OTHERS, OPERATION_QUEUE, type QueueingCounterBackend } from "./counter-operation";
import { createScriptCall, type RedisLike } from "./redis-script-call";

export type { RedisLike } from "./redis-script-call";

export type RedisCounterOptions = {
  /**
   * How long an entry may stay inside a key before it is forgotten (default 60 s): the entry of
   * a worker that crashed before exiting. Make it longer than your longest critical section: an
   * entry older than this is dropped, and an overlap with it is missed.
   */
  ttlMs?: number;
};

export const DEFAULT_COUNTER_TTL_MS = 60_000;

/**
 * Each key is a hash `<key>:inside` of entry id -> "<entered at, Redis ms>:<worker>". The suffix
 * keeps it apart from the plain INCR counters of older clients under the same prefix: during a
 * rolling upgrade neither version meets a value of the wrong type.
 */
export const INSIDE_KEY_SUFFIX = ":inside";

// One script, so that pruning, looking and entering are one atomic step. Entry times come from
// Redis's clock (TIME), the one clock every worker shares, so that an entry's age does not
// depend on which worker's clock is asked. Expiry, per entry: an entry older than ttl is pruned
// by the next entry into the key, so a crashed worker is never reported as inside once ttl has
// passed; per key: each entry sets the key's expiry to ttl, so a key nobody enters again is gone
// ttl after its last entry (by then every entry in it is older than ttl). Unlike an INCR counter
// (whose expiry could not be extended without keeping leaked increments forever), a busy key
// with back-to-back overlaps is never reset: only its stale entries go.
const ENTER_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl = tonumber(ARGV[3])
local fields = redis.call('HGETALL', KEYS[1])
local others = {}
for i = 1, #fields, 2 do
  local value = fields[i + 1]
  local sep = string.find(value, ':', 1, true)
  local entered = sep and tonumber(string.sub(value, 1, sep - 1))
  if entered == nil or now - entered >= ttl then
    redis.call('HDEL', KEYS[1], fields[i])
  elseif fields[i] ~= ARGV[1] then
    others[#others + 1] = { entered, string.sub(value, sep + 1) }
  end
end
redis.call('HSET', KEYS[1], ARGV[1], string.format('%d', now) .. ':' .. ARGV[2])
redis.call('PEXPIRE', KEYS[1], ttl)
table.sort(others, function(a, b) return a[1] < b[1] end)
local reply = { #others }
for i = 1, math.min(#others, tonumber(ARGV[4])) do
  reply[#reply + 1] = others[i][2]
  reply[#reply + 1] = now - others[i][1]
end
return reply`;

// Redis deletes a hash when its last field goes.
const EXIT_SCRIPT = `return redis.call('HDEL', KEYS[1], ARGV[1])`;

/**
 * Operations per script call, as the JVM client's OPS_PER_CALL: a call runs atomically, so this
 * bounds how long it holds Redis (about 1 ms) for its other clients, the locks it may also serve
 * among them.
 */
export const OPS_PER_CALL = 200;

/**
 * Many enters and exits in one call, built exactly as the JVM client's BATCH_SCRIPT (a unit test
 * holds the two equal): ENTER_SCRIPT and EXIT_SCRIPT as functions of their key and arguments,
 * applied in order. KEYS: one per operation; ARGV: the TTL and the most others to name, then per
 * operation "enter" or "exit", its entry id and its worker (empty for an exit). Answers one reply
 * per operation, as the two scripts would.
 */
export const BATCH_SCRIPT = `local function enter(key, entryId, worker, ttlArg, maxOthersArg)${ENTER_SCRIPT.replaceAll("KEYS[1]", "key")
  .replaceAll("ARGV[1]", "entryId")
  .replaceAll("ARGV[2]", "worker")
  .replaceAll("ARGV[3]", "ttlArg")
  .replaceAll("ARGV[4]", "maxOthersArg")}
end
local function exit(key, entryId)
${EXIT_SCRIPT.replaceAll("KEYS[1]", "key").replaceAll("ARGV[1]", "entryId")}
end
local replies = {}
for i = 1, #KEYS do
  local at = 3 * i
  if ARGV[at] == 'enter' then
    replies[i] = enter(KEYS[i], ARGV[at + 1], ARGV[at + 2], ARGV[1], ARGV[2])
  else
    replies[i] = exit(KEYS[i], ARGV[at + 1])
  end
end
return replies`;

/** The others of a well-formed enter reply, [count, worker, ms, worker, ms, ...]. */
function othersOf(reply: unknown[]): readonly OtherInside[] {
  if (reply.length === 1) return NO_OTHERS;
  const others: OtherInside[] = [];
  // A pre-encoded call's replies are not converted: names come as Buffers (toString: UTF-8).
  for (let i = 1; i < reply.length; i += 2) others.push({ worker: String(reply[i]), insideForMs: Number(reply[i + 1]) });
  return others;
}

function isEnterReply(reply: unknown): reply is [number, ...unknown[]] {
  return Array.isArray(reply) && typeof reply[0] === "number" && reply.length % 2 === 1;
}

/** An enter of createRedisCounter's promise API. */
class PromisedEnter implements CounterOperation {
  readonly isEnter = true;
  readonly keyPrefix = "";
  readonly entryIdPrefix = "";
  keyBytes = -1;
  entryIdBytes = -1;
  constructor(
    readonly key: string,
    readonly entryIdSuffix: string,
    readonly worker: string,
    private readonly resolve: (result: EntryResult) => void,
    private readonly reject: (error: unknown) => void,
  ) {}
  entered(othersCount: number, others: readonly OtherInside[]): void {
    this.resolve({ othersCount, others: [...others] });
  }
  exited(): void {}
  failed(error: unknown): void {
    this.reject(error);
  }
}

/** An exit of createRedisCounter's promise API. */
class PromisedExit implements CounterOperation {
  readonly isEnter = false;
  readonly keyPrefix = "";
  readonly entryIdPrefix = "";
  readonly worker = "";
  keyBytes = -1;
  entryIdBytes = -1;
  constructor(
    readonly key: string,
    readonly entryIdSuffix: string,
    private readonly resolve: () => void,
    private readonly reject: (error: unknown) => void,
  ) {}
  entered(): void {}
  exited(): void {
    this.resolve();
  }
  failed(error: unknown): void {
    this.reject(error);
  }
}

/**
 * Who is inside each key, in Redis, shared by every worker that uses the same Redis and key prefix.
 *
 * Enters and exits are batched as in the JVM client, with no timer: when no call is in flight an
 * operation goes to Redis at once, alone; operations issued while calls are in flight wait for
 * the next of them to answer, then go together, OPS_PER_CALL per script call (BATCH_SCRIPT). An
 * idle counter adds no latency; a busy one sends one call where it would have sent a hundred, and
 * keeps calls going while it hands answers out (waiting for every call in flight to answer left
 * the consumer idle while Redis ran the last one). Each operation is answered on its own (an
 * enter's othersCount and others) once Redis ran it, a call's answers in one loop; what they
 * issue meanwhile (the exits of work that ended at once) goes in the next call. Operations run in
 * the order they were issued, within a call and across calls (sent in order over the client's one
 * connection), so an exit issued once its enter answered runs after it. A call that fails fails
 * exactly its operations, with its error. (A script that fails midway, e.g. on a key that is not
 * a hash, has already run the operations before the failing one: they fail too, and an entry
 * among them stays until its TTL, as in the JVM client.) While calls fail (Redis unreachable),
 * nothing is held back: each operation goes to the Redis client at once, as with one call per
 * operation, so that in an outage operations do not wait for each other's failures; a call that
 * succeeds brings batching back.
 *
 * The returned backend's enter and exit are promises, for use on their own; createExclusivityClient
 * queues its units of work on it directly (OPERATION_QUEUE), without a promise per operation.
 */
export function createRedisCounter(redis: RedisLike, options: RedisCounterOptions = {}): QueueingCounterBackend {
  const ttlMs = options.ttlMs ?? DEFAULT_COUNTER_TTL_MS;
  if (!Number.isInteger(ttlMs) || ttlMs < 1) throw new Error(`ttlMs must be a positive integer (got ${ttlMs})`);
  const scriptCall = createScriptCall(redis, BATCH_SCRIPT, INSIDE_KEY_SUFFIX, ttlMs);
  let queue: CounterOperation[] = [];
  let callsInFlight = 0;
  let isFailing = false;
  // While a call's answers are handed out, what they issue waits, to go together after.
  let isAnswering = false;

  function call(operations: CounterOperation[]): Promise<unknown> {
    try {
      return scriptCall(operations);
    } catch (error) {
      // A client that throws instead of rejecting fails this call only.
      return Promise.reject(error);
    }
  }

  function answer(operations: CounterOperation[], reply: unknown): void {
    if (!Array.isArray(reply) || reply.length !== operations.length) {
      const got = Array.isArray(reply) ? `${reply.length} replies` : typeof reply;
      fail(operations, new Error(`Redis answered ${got} to the batch script, expected ${operations.length} replies`));
      return;
    }
    // One clock read per call: its answers all came at once.
    const observedAtMs = Date.now();
    for (let i = 0; i < operations.length; i++) {
      const operation = operations[i]!;
      if (!operation.isEnter) {
        operation.exited();
        continue;
      }
      const entered: unknown = reply[i];
      // A malformed enter reply fails that enter only, as it did with one call per enter.
      if (isEnterReply(entered)) operation.entered(entered[0], othersOf(entered), observedAtMs);
      else operation.failed(new Error(`Redis answered ${JSON.stringify(entered)} to the enter script, expected [count, worker, ms, ...]`));
    }
  }

  function fail(operations: CounterOperation[], error: unknown): void {
    for (const operation of operations) operation.failed(error);
  }

  function send(operations: CounterOperation[]): void {
    callsInFlight += 1;
    call(operations).then(
      (reply) => {
        isFailing = false;
        settled(() => answer(operations, reply));
      },
      (error: unknown) => {
        isFailing = true;
        settled(() => fail(operations, error));
      },
    );
  }

  function sendQueued(): void {
    while (queue.length > OPS_PER_CALL) send(queue.splice(0, OPS_PER_CALL));
    if (queue.length > 0) {
      const operations = queue;
      queue = [];
      send(operations);
    }
  }

  function settled(handOut: () => void): void {
    callsInFlight -= 1;
    isAnswering = true;
    try {
      handOut();
    } finally {
      isAnswering = false;
      // What was issued while this call was out goes now, other calls out or not.
      sendQueued();
    }
  }

  function submit(operation: CounterOperation): void {
    queue.push(operation);
    if (!isAnswering && (callsInFlight === 0 || isFailing)) sendQueued();
  }

  return {
    enter: (key, entry) => new Promise<EntryResult>((resolve, reject) => submit(new PromisedEnter(key, entry.entryId, entry.worker, resolve, reject))),
    exit: (key, entryId) => new Promise<void>((resolve, reject) => submit(new PromisedExit(key, entryId, resolve, reject))),
    [OPERATION_QUEUE]: submit,
  };
}
