import { Command as IoredisCommand, Redis as IoredisRedis } from "ioredis";

import { MAX_OTHERS_INSIDE } from "./counter-backend";
import { type CounterOperation, counterKeyOf, entryIdOf } from "./counter-operation";

/**
 * What the counter needs from a Redis client; an ioredis `Redis` instance fits. One connection to
 * one Redis: a batch's keys lie in many hash slots, which a Redis Cluster does not take in one call.
 */
export type RedisLike = {
  eval(script: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>;
};

/** Runs operations (at most OPS_PER_CALL) as one call of the batch script; resolves to its reply. */
export type ScriptCall = (operations: readonly CounterOperation[]) => Promise<unknown>;

type Ioredis = RedisLike & { sendCommand(command: IoredisCommand): Promise<unknown>; options?: { keyPrefix?: unknown } };

/**
 * Whether `redis` is a client of the ioredis this folder imports (the same copy: a command of
 * another copy is not sent to it) whose keyPrefix, if any, is a string (a Buffer one, rare, is
 * left to ioredis's own encoding). Imported, not loaded on demand: a module that reads
 * `import.meta` is an ES module to every loader, and Playwright's then fails on its CommonJS.
 */
function isPreEncodable(redis: RedisLike): redis is Ioredis {
  if (!(redis instanceof IoredisRedis) || typeof IoredisCommand.prototype.toWritable !== "function") return false;
  const keyPrefix = (redis as Ioredis).options?.keyPrefix;
  return keyPrefix === undefined || typeof keyPrefix === "string";
}

/**
 * How a batch goes to Redis. Through ioredis, as one pre-encoded command: ioredis would otherwise
 * copy, check and encode each of the call's up to 805 arguments one by one (the larger part of the
 * counter's cost per message before), where this writes each operation's few strings into one
 * request string. Any other client gets `eval` with the arguments. Both send the same EVAL, with
 * the same KEYS and ARGV: BATCH_SCRIPT's layout.
 */
export function createScriptCall(redis: RedisLike, script: string, keySuffix: string, ttlMs: number): ScriptCall {
  return isPreEncodable(redis) ? preEncodedCall(redis, script, keySuffix, ttlMs) : evalCall(redis, script, keySuffix, ttlMs);
}

function evalCall(redis: RedisLike, script: string, keySuffix: string, ttlMs: number): ScriptCall {
  return (operations) => {
    const args: (string | number)[] = operations.map((operation) => counterKeyOf(operation) + keySuffix);
    args.push(ttlMs, MAX_OTHERS_INSIDE);
    for (const operation of operations) args.push(operation.isEnter ? "enter" : "exit", entryIdOf(operation), operation.isEnter ? operation.worker : "");
    return redis.eval(script, operations.length, ...args);
  };
}

/** "$<bytes>\r\n": the header of a bulk string; kept for the usual lengths. */
const bulkHeaders: string[] = [];
function bulkHeader(byteLength: number): string {
  if (byteLength >= 1_024) return `$${byteLength}\r\n`;
  return (bulkHeaders[byteLength] ??= `$${byteLength}\r\n`);
}

const bulk = (text: string) => `${bulkHeader(Buffer.byteLength(text))}${text}\r\n`;

/** UTF-8 lengths of the strings operations share (their prefixes), remembered for the last one seen. */
function createByteLengthOfShared(): (text: string) => number {
  let last = "";
  let lastBytes = 0;
  return (text) => {
    if (text !== last) {
      last = text;
      lastBytes = Buffer.byteLength(text);
    }
    return lastBytes;
  };
}

function preEncodedCall(redis: Ioredis, script: string, keySuffix: string, ttlMs: number): ScriptCall {
  // ioredis adds its keyPrefix option to a command's keys itself; a pre-encoded one gets it here.
  const clientKeyPrefix = (redis.options?.keyPrefix as string | undefined) ?? "";
  const fixedKeyBytes = Buffer.byteLength(clientKeyPrefix) + Buffer.byteLength(keySuffix);
  const keyEnd = `${keySuffix}\r\n`;
  const command = bulk("EVAL") + bulk(script);
  const scriptArgs = bulk(String(ttlMs)) + bulk(String(MAX_OTHERS_INSIDE));
  const enter = bulk("enter");
  const exit = bulk("exit");
  const exitEnd = `\r\n${bulk("")}`;
  const keyPrefixBytes = createByteLengthOfShared();
  const entryIdPrefixBytes = createByteLengthOfShared();
  let lastWorker: string | null = null;
  let enterEnd = "";

  /** The request, as RESP: EVAL, the script, the number of keys, the keys, then ARGV. */
  function encode(operations: readonly CounterOperation[]): string {
    let keys = "";
    let argv = "";
    for (const operation of operations) {
      // Measured for the enter, kept for its exit.
      if (operation.keyBytes < 0) {
        operation.keyBytes = fixedKeyBytes + keyPrefixBytes(operation.keyPrefix) + Buffer.byteLength(operation.key);
        operation.entryIdBytes = entryIdPrefixBytes(operation.entryIdPrefix) + Buffer.byteLength(operation.entryIdSuffix);
      }
      keys += `${bulkHeader(operation.keyBytes)}${clientKeyPrefix}${operation.keyPrefix}${operation.key}${keyEnd}`;
      if (operation.isEnter && operation.worker !== lastWorker) {
        lastWorker = operation.worker;
        enterEnd = `\r\n${bulk(lastWorker)}`;
      }
      argv += operation.isEnter
        ? `${enter}${bulkHeader(operation.entryIdBytes)}${operation.entryIdPrefix}${operation.entryIdSuffix}${enterEnd}`
        : `${exit}${bulkHeader(operation.entryIdBytes)}${operation.entryIdPrefix}${operation.entryIdSuffix}${exitEnd}`;
    }
    return `*${5 + 4 * operations.length}\r\n${command}${bulk(String(operations.length))}${keys}${scriptArgs}${argv}`;
  }

  // ioredis's own Command (its promise, timeouts, offline queue and reply parsing), whose request
  // this counter writes. Encoded when ioredis writes it (again, should it resend it after a
  // reconnection): a request of tens of kilobytes kept until Redis answers would be copied by
  // every garbage collection meanwhile. The reply is not converted (a worker name is a Buffer).
  class PreEncodedCommand extends IoredisCommand {
    constructor(private readonly operations: readonly CounterOperation[]) {
      super("eval", []);
    }
    override toWritable(): string {
      return encode(this.operations);
    }
  }
  return (operations) => redis.sendCommand(new PreEncodedCommand(operations));
}
