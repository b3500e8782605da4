import { describe, expect, it } from "vitest";

import { murmur3x86Hash32, pulsarMurmur3Hash } from "@/lib/pulsar/murmur3";

const bytes = (...values: number[]) => new Uint8Array(values);
const utf8 = (text: string) => new TextEncoder().encode(text);

describe("MurmurHash3 x86_32", () => {
  // The reference implementation's published vectors (seed, bytes → unsigned hash).
  it.each([
    [0, bytes(), 0x00000000],
    [1, bytes(), 0x514e28b7],
    [0xffffffff, bytes(), 0x81f16f39],
    [0, bytes(0xff, 0xff, 0xff, 0xff), 0x76293b50],
    [0, bytes(0x21, 0x43, 0x65, 0x87), 0xf55b516b],
    [0x5082edee, bytes(0x21, 0x43, 0x65, 0x87), 0x2362f9de],
    [0, bytes(0x21, 0x43, 0x65), 0x7e4a8634],
    [0, bytes(0x21, 0x43), 0xa0f7b07a],
    [0, bytes(0x21), 0x72661cf4],
    [0, bytes(0, 0, 0, 0), 0x2362f9de],
    [0, bytes(0, 0, 0), 0x85f0b427],
    [0, bytes(0, 0), 0x30f4c306],
    [0, bytes(0), 0x514e28b7],
    [0, utf8("hello"), 0x248bfa47],
    [0, utf8("The quick brown fox jumps over the lazy dog"), 0x2e4ff723],
  ])("seed %i, %o → %i", (seed, input, expected) => {
    expect(murmur3x86Hash32(input, seed)).toBe(expected);
  });

  // Printed by org.apache.pulsar.common.util.Murmur3_32Hash.makeHash(key.getBytes(UTF_8)) from the
  // pulsar-common 4.2.4 jar (the 3.0.7 class is the same code).
  it.each([
    ["", 0],
    ["a", 1009084850],
    ["ab", 465557343],
    ["abc", 870159354],
    ["abcd", 1139631978],
    ["hello", 613153351],
    ["user-42", 963828432],
    ["order-7", 351740542],
    ["The quick brown fox jumps over the lazy dog", 776992547],
    ["ключ", 442048578],
    ["日本語キー", 1610471384],
    ["emoji-😀", 82657275],
    ["k1\u00000\u00000", 619755773],
  ])("Pulsar's Murmur3_32Hash(%j) = %i", (key, expected) => {
    expect(pulsarMurmur3Hash(utf8(key))).toBe(expected);
  });
});
