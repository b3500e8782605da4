import { describe, expect, it } from "vitest";

import { computeStickyKeyHash, foldStickyKeyHash, resolveStickyKeyBytes, selectStickyKeyHashFold } from "@/lib/pulsar/sticky-key-hash";

const utf8 = (text: string) => new TextEncoder().encode(text);

describe("the fold per broker line and selector", () => {
  it.each([
    ["4.2", "consistent-hashing", "mod-65535-plus-1"],
    ["4.2", "auto-split", "mod-65536-nonzero"],
    ["4.2", "sticky", "mod-65536-nonzero"],
    ["3.0", "consistent-hashing", "full-31-bit"],
    ["3.0", "auto-split", "mod-65536"],
    ["3.0", "sticky", "mod-65536"],
  ] as const)("%s %s → %s", (line, selector, fold) => {
    expect(selectStickyKeyHashFold(line, selector)).toBe(fold);
  });

  it.each([
    [0, "mod-65535-plus-1", 1],
    [65534, "mod-65535-plus-1", 65535],
    [65535, "mod-65535-plus-1", 1],
    [2147483647, "mod-65535-plus-1", 32768],
    [0, "mod-65536-nonzero", 1],
    [65536, "mod-65536-nonzero", 1],
    [65537, "mod-65536-nonzero", 1],
    [65538, "mod-65536-nonzero", 2],
    [0, "mod-65536", 0],
    [65536, "mod-65536", 0],
    [2147483647, "full-31-bit", 2147483647],
  ] as const)("%i folded by %s is %i", (hash, fold, expected) => {
    expect(foldStickyKeyHash(hash, fold)).toBe(expected);
  });

  // Murmur3_32Hash.makeHash of these keys (pulsar-common 4.2.4), then `% 65535 + 1` and `% 65536`.
  it.each([
    ["hello", 7892, 64071, 613153351],
    ["user-42", 5188, 56016, 963828432],
    ["order-7", 14198, 8830, 351740542],
    ["ключ", 15004, 8258, 442048578],
  ])("the hash of %j", (key, mod65535Plus1, mod65536, full) => {
    expect(computeStickyKeyHash(utf8(key), "mod-65535-plus-1")).toBe(mod65535Plus1);
    expect(computeStickyKeyHash(utf8(key), "mod-65536")).toBe(mod65536);
    expect(computeStickyKeyHash(utf8(key), "full-31-bit")).toBe(full);
  });
});

describe("which bytes the broker hashes", () => {
  it("takes the ordering key before the partition key", () => {
    const ordering = utf8("order-1");
    expect(resolveStickyKeyBytes({ orderingKey: ordering, partitionKey: "user-42" }, "4.2")).toEqual({ ok: true, value: ordering });
  });

  it("takes the partition key's UTF-8 bytes, or its base64-decoded bytes when it was set as bytes", () => {
    expect(resolveStickyKeyBytes({ partitionKey: "ключ" }, "4.2")).toEqual({ ok: true, value: utf8("ключ") });
    expect(resolveStickyKeyBytes({ partitionKey: "/wAB", isPartitionKeyBase64: true }, "3.0")).toEqual({ ok: true, value: new Uint8Array([0xff, 0x00, 0x01]) });
    expect(resolveStickyKeyBytes({ partitionKey: "/wA", isPartitionKeyBase64: true }, "4.2")).toEqual({ ok: true, value: new Uint8Array([0xff, 0x00]) });
  });

  it('hashes what each line hashes for a keyless message: 3.0 "NONE_KEY", 4.x producerName-sequenceId', () => {
    expect(resolveStickyKeyBytes({}, "3.0")).toEqual({ ok: true, value: utf8("NONE_KEY") });
    expect(resolveStickyKeyBytes({ producerName: "standalone-0-7", sequenceId: 12 }, "4.2")).toEqual({ ok: true, value: utf8("standalone-0-7-12") });
  });

  it.each([
    [{}, "no-key"],
    [{ partitionKey: "bad\uFFFDkey" }, "key-not-utf8"],
    [{ partitionKey: "lone\uD800" }, "key-not-utf8"],
    [{ partitionKey: "not base64!", isPartitionKeyBase64: true }, "key-not-utf8"],
  ])("cannot be computed on 4.2 for %j: %s", (keys, reason) => {
    expect(resolveStickyKeyBytes(keys, "4.2")).toMatchObject({ ok: false, reason });
  });
});
