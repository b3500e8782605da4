// The partition a keyed message goes to with the Java client's routers (RoundRobinPartition, the
// default, and SinglePartition both send a keyed message to signSafeMod(hash(key), partitions)).
// The hash is the producer's `hashingScheme`: JavaStringHash (the default) or Murmur3_32Hash.
// Pure and client-safe; docs/owner-rules.md cites the client source.

import { pulsarMurmur3Hash } from "@/lib/pulsar/murmur3";
import { cannotCompute, computed, type RuleResult } from "@/lib/poller/contract/rule-result";
import { encodeUtf8Exactly } from "@/lib/pulsar/utf8";

export const HASHING_SCHEMES = ["JavaStringHash", "Murmur3_32Hash"] as const;
export type HashingScheme = (typeof HASHING_SCHEMES)[number];
export const DEFAULT_HASHING_SCHEME: HashingScheme = "JavaStringHash";

/** `String.hashCode()` over UTF-16 code units, with the sign bit cleared (JavaStringHash.makeHash). */
export function javaStringHash(key: string): number {
  let hash = 0;
  for (let i = 0; i < key.length; i++) hash = (Math.imul(hash, 31) + key.charCodeAt(i)) | 0;
  return hash & 0x7fffffff;
}

/** The client's MathUtils.signSafeMod: a remainder that is never negative. */
export function signSafeMod(dividend: number, divisor: number): number {
  const mod = dividend % divisor;
  return mod < 0 ? mod + divisor : mod;
}

/** The hash the client's router takes the key's partition from. */
export function hashPartitionKey(key: string, scheme: HashingScheme): RuleResult<number> {
  if (scheme === "JavaStringHash") return computed(javaStringHash(key));
  // Murmur3Hash32.makeHash(String) hashes the key's UTF-8 bytes.
  const bytes = encodeUtf8Exactly(key);
  if (!bytes) return cannotCompute("key-not-utf8", "the key has a lone surrogate or U+FFFD: its UTF-8 bytes as sent are unknown");
  return computed(pulsarMurmur3Hash(bytes));
}

/** The partition index a message with this key is routed to, on a topic with `partitions` partitions. */
export function routeKeyToPartition(key: string, partitions: number, scheme: HashingScheme = DEFAULT_HASHING_SCHEME): RuleResult<number> {
  if (!Number.isInteger(partitions) || partitions < 1) {
    return cannotCompute("not-partitioned", `a topic with ${partitions} partitions has no key routing`);
  }
  const hash = hashPartitionKey(key, scheme);
  return hash.ok ? computed(signSafeMod(hash.value, partitions)) : hash;
}
