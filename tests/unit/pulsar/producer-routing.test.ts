import { describe, expect, it } from "vitest";

import { hashPartitionKey, javaStringHash, routeKeyToPartition, signSafeMod } from "@/lib/pulsar/producer-routing";

describe("the Java client's key routing", () => {
  // JavaStringHash.makeHash and Murmur3Hash32.makeHash printed from pulsar-client-original 4.2.4.
  it.each([
    ["", 0, 0],
    ["a", 97, 1009084850],
    ["abcd", 2987074, 1139631978],
    ["hello", 99162322, 613153351],
    ["user-42", 2000300992, 963828432],
    ["The quick brown fox jumps over the lazy dog", 1538055507, 776992547],
    ["ключ", 33309882, 442048578],
    ["日本語キー", 1289065926, 1610471384],
    ["emoji-😀", 1164511306, 82657275],
  ])("hashes %j: JavaStringHash %i, Murmur3_32Hash %i", (key, java, murmur) => {
    expect(javaStringHash(key)).toBe(java);
    expect(hashPartitionKey(key, "JavaStringHash")).toEqual({ ok: true, value: java });
    expect(hashPartitionKey(key, "Murmur3_32Hash")).toEqual({ ok: true, value: murmur });
  });

  it("takes a remainder that is never negative", () => {
    expect(signSafeMod(-7, 4)).toBe(1);
    expect(signSafeMod(7, 4)).toBe(3);
    expect(signSafeMod(0, 4)).toBe(0);
  });

  it.each([
    ["hello", 4, "JavaStringHash", 2],
    ["hello", 5, "JavaStringHash", 2],
    ["hello", 4, "Murmur3_32Hash", 3],
    ["user-42", 7, "JavaStringHash", 2000300992 % 7],
    ["user-42", 7, "Murmur3_32Hash", 963828432 % 7],
  ] as const)("routes %j over %i partitions with %s to %i", (key, partitions, scheme, expected) => {
    expect(routeKeyToPartition(key, partitions, scheme)).toEqual({ ok: true, value: expected });
  });

  it("uses JavaStringHash by default, as the client does", () => {
    expect(routeKeyToPartition("user-42", 7)).toEqual(routeKeyToPartition("user-42", 7, "JavaStringHash"));
  });

  it("cannot be computed without partitions, or for Murmur3 over a key whose bytes are unknown", () => {
    expect(routeKeyToPartition("k", 0)).toMatchObject({ ok: false, reason: "not-partitioned" });
    expect(routeKeyToPartition("bad\uFFFD", 4, "Murmur3_32Hash")).toMatchObject({ ok: false, reason: "key-not-utf8" });
    // String.hashCode works on UTF-16 code units: no bytes involved.
    expect(routeKeyToPartition("bad\uFFFD", 4, "JavaStringHash").ok).toBe(true);
  });
});
