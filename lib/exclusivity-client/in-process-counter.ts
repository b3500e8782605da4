import { type CounterBackend, MAX_OTHERS_INSIDE } from "./counter-backend";
import { DEFAULT_COUNTER_TTL_MS } from "./redis-counter";

export type InProcessCounterOptions = {
  /** How long an entry may stay inside before it is forgotten, as for Redis (default 60 s). */
  ttlMs?: number;
  /** The clock (tests move it). */
  now?: () => number;
};

type Inside = { worker: string; enteredAtMs: number };

/**
 * Who is inside each key, in this process's memory, for services without Redis (or tests). The
 * same rules as the Redis script: stale entries (older than ttlMs) are pruned on entry, the
 * others are returned longest-inside first. JavaScript runs one callback at a time, so each
 * operation is atomic. It sees overlaps only between workers of this process: use Redis when
 * the workers are separate processes or pods.
 */
export function createInProcessCounter(options: InProcessCounterOptions = {}): CounterBackend {
  const ttlMs = options.ttlMs ?? DEFAULT_COUNTER_TTL_MS;
  const now = options.now ?? Date.now;
  const keys = new Map<string, Map<string, Inside>>();
  return {
    enter: async (key, entry) => {
      const nowMs = now();
      const inside = keys.get(key) ?? new Map<string, Inside>();
      keys.set(key, inside);
      const others: Inside[] = [];
      for (const [entryId, other] of inside) {
        if (nowMs - other.enteredAtMs >= ttlMs) inside.delete(entryId);
        else if (entryId !== entry.entryId) others.push(other);
      }
      inside.set(entry.entryId, { worker: entry.worker, enteredAtMs: nowMs });
      others.sort((a, b) => a.enteredAtMs - b.enteredAtMs);
      return { othersCount: others.length, others: others.slice(0, MAX_OTHERS_INSIDE).map((o) => ({ worker: o.worker, insideForMs: nowMs - o.enteredAtMs })) };
    },
    exit: async (key, entryId) => {
      const inside = keys.get(key);
      if (!inside) return;
      inside.delete(entryId);
      // Nobody inside: forget the key.
      if (inside.size === 0) keys.delete(key);
    },
  };
}
