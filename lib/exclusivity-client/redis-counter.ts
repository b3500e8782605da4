import { type CounterBackend, type EntryResult, MAX_OTHERS_INSIDE } from "./counter-backend";

/**
 * What the counter needs from a Redis client; an ioredis `Redis` instance fits. One connection to
 * one Redis: a batch's keys lie in many hash slots, which a Redis Cluster does not take in one call.
 */
export type RedisLike = {
  eval(script: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>;
};

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

function toEntryResult(reply: unknown): EntryResult {
  const isWellFormed = Array.isArray(reply) && typeof reply[0] === "number" && reply.length % 2 === 1;
  if (!isWellFormed) throw new Error(`Redis answered ${JSON.stringify(reply)} to the enter script, expected [count, worker, ms, ...]`);
  const others: EntryResult["others"] = [];
  for (let i = 1; i < reply.length; i += 2) others.push({ worker: String(reply[i]), insideForMs: Number(reply[i + 1]) });
  return { othersCount: reply[0] as number, others };
}

/** An enter or exit waiting for its call's answer. */
type Operation =
  | { kind: "enter"; redisKey: string; entryId: string; worker: string; resolve: (result: EntryResult) => void; reject: (error: unknown) => void }
  | { kind: "exit"; redisKey: string; entryId: string; resolve: () => void; reject: (error: unknown) => void };

/**
 * Who is inside each key, in Redis, shared by every worker that uses the same Redis and key prefix.
 *
 * Enters and exits are batched as in the JVM client, with no timer: when no call is in flight an
 * operation goes to Redis at once, alone; operations issued while calls are in flight wait for
 * them to answer, then go together, OPS_PER_CALL per script call (BATCH_SCRIPT). An idle counter
 * adds no latency; a busy one sends one call where it would have sent a hundred. Each promise
 * still settles with its own operation's answer (an enter's othersCount and others) once Redis
 * ran it. Operations run in the order they were issued, within a call and across calls (sent in
 * order over the client's one connection), so an exit issued once its enter answered runs after
 * it. A call that fails rejects exactly its operations, with its error. (A script that fails
 * midway, e.g. on a key that is not a hash, has already run the operations before the failing
 * one: they are rejected too, and an entry among them stays until its TTL, as in the JVM client.)
 * While calls fail (Redis unreachable), nothing is held back: each operation goes to the Redis
 * client at once, as with one call per operation, so that in an outage operations do not wait for
 * each other's failures; a call that succeeds brings batching back.
 */
export function createRedisCounter(redis: RedisLike, options: RedisCounterOptions = {}): CounterBackend {
  const ttlMs = options.ttlMs ?? DEFAULT_COUNTER_TTL_MS;
  if (!Number.isInteger(ttlMs) || ttlMs < 1) throw new Error(`ttlMs must be a positive integer (got ${ttlMs})`);
  const queue: Operation[] = [];
  let callsInFlight = 0;
  let isFailing = false;

  function call(operations: Operation[]): Promise<unknown> {
    const args: (string | number)[] = operations.map((operation) => operation.redisKey);
    args.push(ttlMs, MAX_OTHERS_INSIDE);
    for (const operation of operations) args.push(operation.kind, operation.entryId, operation.kind === "enter" ? operation.worker : "");
    try {
      return redis.eval(BATCH_SCRIPT, operations.length, ...args);
    } catch (error) {
      // A client that throws instead of rejecting fails this call only.
      return Promise.reject(error);
    }
  }

  function answer(operations: Operation[], reply: unknown): void {
    if (!Array.isArray(reply) || reply.length !== operations.length) {
      const got = Array.isArray(reply) ? `${reply.length} replies` : typeof reply;
      const error = new Error(`Redis answered ${got} to the batch script, expected ${operations.length} replies`);
      for (const operation of operations) operation.reject(error);
      return;
    }
    for (let i = 0; i < operations.length; i++) {
      const operation = operations[i]!;
      if (operation.kind === "exit") {
        operation.resolve();
        continue;
      }
      // A malformed enter reply fails that enter only, as it did with one call per enter.
      try {
        operation.resolve(toEntryResult(reply[i]));
      } catch (error) {
        operation.reject(error);
      }
    }
  }

  function send(operations: Operation[]): void {
    callsInFlight += 1;
    call(operations).then(
      (reply) => {
        isFailing = false;
        answer(operations, reply);
        settled();
      },
      (error: unknown) => {
        isFailing = true;
        for (const operation of operations) operation.reject(error);
        settled();
      },
    );
  }

  function sendQueued(): void {
    while (queue.length > 0) send(queue.splice(0, OPS_PER_CALL));
  }

  function settled(): void {
    callsInFlight -= 1;
    if (callsInFlight === 0 || isFailing) sendQueued();
  }

  function submit(operation: Operation): void {
    queue.push(operation);
    if (callsInFlight === 0 || isFailing) sendQueued();
  }

  return {
    enter: (key, entry) =>
      new Promise<EntryResult>((resolve, reject) =>
        submit({ kind: "enter", redisKey: key + INSIDE_KEY_SUFFIX, entryId: entry.entryId, worker: entry.worker, resolve, reject }),
      ),
    exit: (key, entryId) => new Promise<void>((resolve, reject) => submit({ kind: "exit", redisKey: key + INSIDE_KEY_SUFFIX, entryId, resolve, reject })),
  };
}
