import type { CounterBackend } from "./counter-backend";

/**
 * Counters in this process's memory, for services without Redis (or tests). JavaScript runs one
 * callback at a time, so the read-modify-write below is atomic. It sees overlaps only between
 * workers of this process: use Redis when the workers are separate processes or pods.
 */
export function createInProcessCounter(): CounterBackend {
  const counts = new Map<string, number>();
  return {
    increment: async (key) => {
      const value = (counts.get(key) ?? 0) + 1;
      counts.set(key, value);
      return value;
    },
    decrement: async (key) => {
      const value = (counts.get(key) ?? 0) - 1;
      // Zero (or below, after a bug elsewhere) means nobody inside: forget the key.
      if (value <= 0) counts.delete(key);
      else counts.set(key, value);
      return value;
    },
  };
}
