import type { CommandLimiter } from "./command-limiter";
import type { RedisLayout, RedisLockPattern } from "./redis-config";
import { isLiteralKeyPattern } from "./redis-config";
import { RedisSourceError } from "./redis-error";
import { literalKey } from "./redis-glob";
import { type RedisMaster, sendCommand } from "./redis-connection";
import type { LockRef } from "@/lib/poller/contract/hold-source";

// Finds lock keys with SCAN ... MATCH (never KEYS: SCAN walks COUNT keys per call, so Redis
// serves other clients between calls). SCAN's cost is the whole keyspace whatever MATCH says, so
// discovery runs every few minutes and resumes where it stopped: a cursor per pattern per master.

/** A lock found by discovery, with the pattern that found it. */
export type DiscoveredKey = LockRef;

export type DiscoveryResult = {
  /** Every lock key known per pattern: the last full pass, plus what the current pass found so far. */
  keys: DiscoveredKey[];
  errors: { master: string; message: string }[];
  /** True when every pattern on every answering master finished a full pass during this call. */
  isPassComplete: boolean;
  /** SCAN commands this call sent. */
  scanCalls: number;
};

type ScanState = {
  /** "0" between passes. */
  cursor: string;
  /** Keys the pass under way has found. */
  found: Set<string>;
  /** Keys of the last finished pass, or null before the first one finishes. */
  lastPass: Set<string> | null;
};

// SCAN's TYPE option (Redis 6+) lets Redis drop keys of the wrong type before answering:
// Redisson's own queue (list) and timeout (zset) keys, or a job's data under a lock's prefix.
const LAYOUT_KEY_TYPE: Record<RedisLayout, string> = { token: "string", redisson: "hash" };

export type LockDiscovery = {
  /**
   * Continues every pattern's SCAN on every master: by default until each pass finishes, or for
   * at most `maxScanCalls` SCANs per pattern per master (the pass resumes on the next call).
   */
  discover(masters: RedisMaster[], options?: { maxScanCalls?: number }): Promise<DiscoveryResult>;
};

export function createLockDiscovery(options: { patterns: RedisLockPattern[]; scanCount: number; limiter: CommandLimiter }): LockDiscovery {
  const scanned = options.patterns.filter((pattern) => !isLiteralKeyPattern(pattern.match));
  const literal = options.patterns.filter((pattern) => isLiteralKeyPattern(pattern.match));
  const states = new Map<string, ScanState>();
  /** Masters that rejected SCAN's TYPE option (Redis before 6): scanned without it. */
  const mastersWithoutTypeFilter = new Set<string>();

  function stateOf(master: RedisMaster, pattern: RedisLockPattern): ScanState {
    const id = `${master.id}\u0000${pattern.match}`;
    let state = states.get(id);
    if (!state) {
      state = { cursor: "0", found: new Set(), lastPass: null };
      states.set(id, state);
    }
    return state;
  }

  async function scanOnce(master: RedisMaster, pattern: RedisLockPattern, cursor: string): Promise<[string, string[]]> {
    const args: (string | number)[] = [cursor, "MATCH", pattern.match, "COUNT", options.scanCount];
    if (!mastersWithoutTypeFilter.has(master.id)) args.push("TYPE", LAYOUT_KEY_TYPE[pattern.layout]);
    try {
      return (await sendCommand(master, options.limiter, ["SCAN", ...args])) as [string, string[]];
    } catch (error) {
      if (error instanceof RedisSourceError && /syntax error/i.test(error.message) && !mastersWithoutTypeFilter.has(master.id)) {
        mastersWithoutTypeFilter.add(master.id);
        return scanOnce(master, pattern, cursor);
      }
      throw error;
    }
  }

  /** Scans one pattern on one master; returns the SCAN calls sent and whether the pass finished. */
  async function continuePass(master: RedisMaster, pattern: RedisLockPattern, maxScanCalls: number): Promise<{ calls: number; isFinished: boolean }> {
    const state = stateOf(master, pattern);
    let calls = 0;
    while (calls < maxScanCalls) {
      const [next, keys] = await scanOnce(master, pattern, state.cursor);
      calls += 1;
      for (const key of keys) state.found.add(key);
      state.cursor = next;
      if (next === "0") {
        state.lastPass = state.found;
        state.found = new Set();
        return { calls, isFinished: true };
      }
    }
    return { calls, isFinished: false };
  }

  return {
    async discover(masters, callOptions = {}) {
      const maxScanCalls = callOptions.maxScanCalls ?? Number.POSITIVE_INFINITY;
      const errors: DiscoveryResult["errors"] = [];
      let scanCalls = 0;
      let isPassComplete = true;
      await Promise.all(
        masters.map(async (master) => {
          for (const pattern of scanned) {
            try {
              const { calls, isFinished } = await continuePass(master, pattern, maxScanCalls);
              scanCalls += calls;
              isPassComplete &&= isFinished;
            } catch (error) {
              isPassComplete = false;
              errors.push({ master: master.id, message: (error as Error).message });
              // The cursor stays where it was: the next call resumes this pass.
              break;
            }
          }
        }),
      );

      const keys: DiscoveredKey[] = [];
      for (const pattern of scanned) {
        const union = new Set<string>();
        for (const master of masters) {
          const state = stateOf(master, pattern);
          for (const key of state.lastPass ?? []) union.add(key);
          for (const key of state.found) union.add(key);
        }
        for (const key of [...union].sort()) keys.push({ key, pattern: pattern.match });
      }
      // A pattern without wildcards names its key: it is known without a scan, and a free one
      // (a leader election nobody won) must still be observed.
      for (const pattern of literal) keys.push({ key: literalKey(pattern.match), pattern: pattern.match });
      return { keys, errors, isPassComplete, scanCalls };
    },
  };
}
