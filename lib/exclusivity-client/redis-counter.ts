import { type CounterBackend, type EntryResult, MAX_OTHERS_INSIDE } from "./counter-backend";

/** What the counter needs from a Redis client; an ioredis `Redis` instance fits. */
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

function toEntryResult(reply: unknown): EntryResult {
  const isWellFormed = Array.isArray(reply) && typeof reply[0] === "number" && reply.length % 2 === 1;
  if (!isWellFormed) throw new Error(`Redis answered ${JSON.stringify(reply)} to the enter script, expected [count, worker, ms, ...]`);
  const others: EntryResult["others"] = [];
  for (let i = 1; i < reply.length; i += 2) others.push({ worker: String(reply[i]), insideForMs: Number(reply[i + 1]) });
  return { othersCount: reply[0] as number, others };
}

/** Who is inside each key, in Redis, shared by every worker that uses the same Redis and key prefix. */
export function createRedisCounter(redis: RedisLike, options: RedisCounterOptions = {}): CounterBackend {
  const ttlMs = options.ttlMs ?? DEFAULT_COUNTER_TTL_MS;
  if (!Number.isInteger(ttlMs) || ttlMs < 1) throw new Error(`ttlMs must be a positive integer (got ${ttlMs})`);
  return {
    enter: async (key, entry) =>
      toEntryResult(await redis.eval(ENTER_SCRIPT, 1, key + INSIDE_KEY_SUFFIX, entry.entryId, entry.worker, ttlMs, MAX_OTHERS_INSIDE)),
    exit: async (key, entryId) => {
      await redis.eval(EXIT_SCRIPT, 1, key + INSIDE_KEY_SUFFIX, entryId);
    },
  };
}
