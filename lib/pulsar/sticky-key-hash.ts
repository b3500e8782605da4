// Key_Shared's sticky-key hash, per broker line: which bytes the broker hashes, and how the
// 31-bit Murmur3 value is folded into the space the stats' hash ranges live in. Pure and
// client-safe; docs/owner-rules.md cites the broker source for each step.

import type { BrokerLine } from "@/lib/pulsar/broker-line";
import { pulsarMurmur3Hash } from "@/lib/pulsar/murmur3";
import { cannotCompute, computed, type RuleResult } from "@/lib/poller/contract/rule-result";
import { encodeUtf8Exactly } from "@/lib/pulsar/utf8";

/** The broker's sticky-key selector: consistent hashing is the default for AUTO_SPLIT
 * (`subscriptionKeySharedUseConsistentHashing=true`); STICKY consumers declare their ranges. */
export type KeySharedSelector = "consistent-hashing" | "auto-split" | "sticky";

/**
 * How the 31-bit hash becomes the value looked up in the ranges:
 * - "full-31-bit": 3.0 consistent hashing; ranges cover 0..2^31-2, and 2^31-1 wraps to the first.
 * - "mod-65536": 3.0 auto-split and sticky selectors (`hash % 65536`, 0..65535).
 * - "mod-65535-plus-1": 4.x consistent hashing (`hash % 65535 + 1`, 1..65535).
 * - "mod-65536-nonzero": 4.x auto-split and sticky (`hash % 65536`, with 0 moved to 1).
 */
export type StickyKeyHashFold = "full-31-bit" | "mod-65536" | "mod-65535-plus-1" | "mod-65536-nonzero";

/** 0 means "hash not set" in 4.x dispatchers, so 4.x never produces it (StickyKeyConsumerSelector). */
const HASH_NOT_SET = 0;
const RANGE_SIZE = 65_536;

export function selectStickyKeyHashFold(line: BrokerLine, selector: KeySharedSelector): StickyKeyHashFold {
  if (line === "3.0") return selector === "consistent-hashing" ? "full-31-bit" : "mod-65536";
  return selector === "consistent-hashing" ? "mod-65535-plus-1" : "mod-65536-nonzero";
}

/** Folds `Murmur3_32Hash.makeHash(key)` (0..2^31-1) the way the broker's selector does. */
export function foldStickyKeyHash(hash31: number, fold: StickyKeyHashFold): number {
  switch (fold) {
    case "full-31-bit":
      return hash31;
    case "mod-65536":
      return hash31 % RANGE_SIZE;
    case "mod-65535-plus-1":
      // Range.of(1, 65535).size() is 65535; the start (1) is added after the modulo.
      return (hash31 % (RANGE_SIZE - 1)) + 1;
    case "mod-65536-nonzero": {
      const slot = hash31 % RANGE_SIZE;
      return slot === HASH_NOT_SET ? HASH_NOT_SET + 1 : slot;
    }
  }
}

/** The sticky-key hash of the bytes the broker hashes. */
export function computeStickyKeyHash(stickyKey: Uint8Array, fold: StickyKeyHashFold): number {
  return foldStickyKeyHash(pulsarMurmur3Hash(stickyKey), fold);
}

/** The keys a message carries, as the producer set them. */
export type MessageKeys = {
  /** The ordering key (bytes); when present it is the sticky key, whatever the partition key. */
  orderingKey?: Uint8Array;
  /** The message key (the partition key), as a string. */
  partitionKey?: string;
  /** True when the producer set the key as bytes (`keyBytes`): the string is their base64 and the
   * broker hashes the decoded bytes. */
  isPartitionKeyBase64?: boolean;
  /** Only for keyless messages on 4.x, which hash `producerName-sequenceId`. */
  producerName?: string;
  sequenceId?: number;
};

/** What 3.0 hashes for a keyless message (Commands.NONE_KEY): all of them go to one consumer. */
const NONE_KEY = new TextEncoder().encode("NONE_KEY");

/**
 * The bytes the broker hashes for a message: the ordering key, else the partition key (decoded
 * from base64 when it was set as bytes, else its UTF-8 bytes). Without either, 3.0 hashes
 * "NONE_KEY" and 4.x hashes `producerName-sequenceId`.
 */
export function resolveStickyKeyBytes(keys: MessageKeys, line: BrokerLine): RuleResult<Uint8Array> {
  if (keys.orderingKey) return computed(keys.orderingKey);
  if (keys.partitionKey === undefined) return resolveKeylessBytes(keys, line);
  if (keys.isPartitionKeyBase64) return decodeBase64Key(keys.partitionKey);
  const bytes = encodeUtf8Exactly(keys.partitionKey);
  if (!bytes) {
    return cannotCompute("key-not-utf8", "the key has a lone surrogate or U+FFFD: its bytes as sent are unknown");
  }
  return computed(bytes);
}

function resolveKeylessBytes(keys: MessageKeys, line: BrokerLine): RuleResult<Uint8Array> {
  if (line === "3.0") return computed(NONE_KEY);
  if (keys.producerName === undefined || keys.sequenceId === undefined) {
    return cannotCompute("no-key", "the message has no key: 4.x hashes producerName-sequenceId, which the event does not carry");
  }
  const fallback = encodeUtf8Exactly(`${keys.producerName}-${keys.sequenceId}`);
  return fallback ? computed(fallback) : cannotCompute("key-not-utf8", "the producer name is not well-formed text");
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

function decodeBase64Key(text: string): RuleResult<Uint8Array> {
  // Java's Base64.getDecoder(): the basic alphabet, no whitespace; padding is accepted, not required.
  if (!BASE64.test(text)) return cannotCompute("key-not-utf8", "the key is marked as base64 bytes but is not valid base64");
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return computed(bytes);
}
