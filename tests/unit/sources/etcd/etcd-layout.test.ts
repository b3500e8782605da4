import { describe, expect, it } from "vitest";

import { type EtcdKeyValue, prefixRangeEnd } from "@/lib/sources/etcd/etcd-api";
import { groupContenders, isUnderPrefix, nameOf, resourceKeyOfName, toContender } from "@/lib/sources/etcd/etcd-layout";
import { toHoldObservation } from "@/lib/sources/etcd/etcd-observation";
import { createKeyIndex } from "@/lib/sources/etcd/key-index";
import { isLeaseReadDue } from "@/lib/sources/etcd/read-holds";
import { toHint } from "@/lib/sources/etcd/watch-holds";

// Lease ids as etcd 3.4 hands them out (member bits + counter): larger than 2^53.
const LEASE_A = "2324035585080402949"; // 0x2040a20d2615a405
const LEASE_B = "2324035585080402950"; // 0x2040a20d2615a406
const LEASE_C = "7587869493051432515";

function leaseRead(leaseId: string, ttlSeconds: number, atMs: number, grantedTtlSeconds = 60) {
  return { leaseId, ttlSeconds, grantedTtlSeconds, answeredAt: new Date(atMs).toISOString() };
}

function kv(key: string, value: string, createRevision: number, leaseId: string): EtcdKeyValue {
  return { key, value, createRevision, modRevision: createRevision, leaseId };
}

describe("toContender", () => {
  const cases: { name: string; kv: EtcdKeyValue; layout: Parameters<typeof toContender>[1]; expected: { resourceKey: string; layout: string } | null }[] = [
    {
      name: "a Go election key (lease in hex)",
      kv: kv("jobs/orders/2040a20d2615a405", "pod-a", 4, LEASE_A),
      layout: "go-election",
      expected: { resourceKey: "jobs/orders", layout: "go-election" },
    },
    {
      name: "a Go mutex key",
      kv: kv("locks/daily/2040a20d2615a405", "", 4, LEASE_A),
      layout: "go-mutex",
      expected: { resourceKey: "locks/daily", layout: "go-mutex" },
    },
    {
      name: "an etcd3 election key (lease in decimal)",
      kv: kv(`election/billing/${LEASE_C}`, "node-a", 9, LEASE_C),
      layout: "etcd3-election",
      expected: { resourceKey: "election/billing", layout: "etcd3-election" },
    },
    {
      name: "an etcd3 lock key",
      kv: kv("locks/report", "", 9, LEASE_C),
      layout: "etcd3-lock",
      expected: { resourceKey: "locks/report", layout: "etcd3-lock" },
    },
    { name: "auto: a Go election", kv: kv("x/2040a20d2615a405", "pod", 1, LEASE_A), layout: "auto", expected: { resourceKey: "x", layout: "go-election" } },
    {
      name: "auto: a Go mutex (empty value)",
      kv: kv("x/2040a20d2615a405", "", 1, LEASE_A),
      layout: "auto",
      expected: { resourceKey: "x", layout: "go-mutex" },
    },
    {
      name: "auto: an etcd3 election",
      kv: kv(`election/x/${LEASE_C}`, "v", 1, LEASE_C),
      layout: "auto",
      expected: { resourceKey: "election/x", layout: "etcd3-election" },
    },
    {
      name: "auto: any other leased key is an etcd3 lock",
      kv: kv("locks/y", "", 1, LEASE_C),
      layout: "auto",
      expected: { resourceKey: "locks/y", layout: "etcd3-lock" },
    },
    { name: "a key without a lease is no contender", kv: kv("jobs/orders/config", "{}", 1, "0"), layout: "auto", expected: null },
    {
      name: "a Go layout whose last segment is another lease",
      kv: kv("jobs/orders/2040a20d2615a406", "pod", 1, LEASE_A),
      layout: "go-election",
      expected: null,
    },
    { name: "an etcd3 election key under a Go layout", kv: kv(`election/x/${LEASE_C}`, "v", 1, LEASE_C), layout: "go-election", expected: null },
  ];
  it.each(cases)("$name", ({ kv: input, layout, expected }) => {
    const contender = toContender(input, layout);
    if (expected === null) expect(contender).toBeNull();
    else expect(contender).toMatchObject(expected);
  });
});

describe("an election's order", () => {
  const contenders = [
    kv("e/2040a20d2615a406", "pod-b", 7, LEASE_B),
    kv(`e/${BigInt(LEASE_C).toString(16)}`, "pod-c", 9, LEASE_C),
    kv("e/2040a20d2615a405", "pod-a", 5, LEASE_A),
  ].map((k) => toContender(k, "go-election")!);

  it("the lowest create revision leads and the others wait in create-revision order", () => {
    const group = groupContenders(contenders).get("e")!;
    expect(group.map(nameOf)).toEqual(["pod-a", "pod-b", "pod-c"]);
  });

  it("becomes an observation: holder, token of lease and create revision, expiry from the lease's TTL left", () => {
    const observation = toHoldObservation({
      resourceKey: "e",
      pattern: "e",
      contenders: groupContenders(contenders).get("e")!,
      revision: 12,
      observedAt: "2026-11-24T10:00:00.000Z",
      lease: { leaseId: LEASE_A, ttlSeconds: 54, grantedTtlSeconds: 60, answeredAt: "2026-11-24T10:00:00.010Z" },
    });
    expect(observation).toMatchObject({
      holder: "pod-a",
      holderToken: "2040a20d2615a405@5",
      waiters: ["pod-b", "pod-c"],
      ttlMs: 54_000,
      expiresAt: "2026-11-24T10:00:54.010Z",
      observedAt: "2026-11-24T10:00:00.000Z",
      isSplit: false,
      details: { layout: "go-election", leaseId: "2040a20d2615a405", createRevision: 5, leaseGrantedTtlS: 60, revision: 12 },
    });
  });

  it("a Mutex's holder is named by its lease id; an empty group is free", () => {
    const mutex = toContender(kv("m/2040a20d2615a405", "", 3, LEASE_A), "go-mutex")!;
    expect(nameOf(mutex)).toBe("2040a20d2615a405");
    expect(
      toHoldObservation({ resourceKey: "m", pattern: "m/", contenders: [], revision: 3, observedAt: "2026-11-24T10:00:00.000Z", lease: null }),
    ).toMatchObject({
      holder: null,
      holderToken: null,
      expiresAt: null,
      waiters: [],
    });
  });
});

describe("names and ranges", () => {
  it("finds the held thing of a deleted key from its name alone", () => {
    expect(resourceKeyOfName("jobs/orders/2040a20d2615a405", "go-election")).toBe("jobs/orders");
    expect(resourceKeyOfName(`election/x/${LEASE_C}`, "etcd3-election")).toBe("election/x");
    expect(resourceKeyOfName("locks/report", "etcd3-lock")).toBe("locks/report");
    expect(resourceKeyOfName("jobs/orders/2040a20d2615a405", "auto")).toBe("jobs/orders");
    expect(resourceKeyOfName("locks/report", "auto")).toBe("locks/report");
  });

  it("computes a prefix's range end as clientv3 does", () => {
    expect(prefixRangeEnd("abc").toString()).toBe("abd");
    expect(prefixRangeEnd("elections/").toString()).toBe("elections0");
    // Bytes, not characters: "ÿ" is c3 bf in UTF-8, and its last byte is what goes up.
    expect(prefixRangeEnd("a\u00ff").toString("hex")).toBe("61c3c0");
  });

  it("tells whether a held thing lies under a watched prefix, with or without the trailing slash", () => {
    expect(isUnderPrefix("elections/orders", "elections/")).toBe(true);
    expect(isUnderPrefix("myjob", "myjob/")).toBe(true);
    expect(isUnderPrefix("other/orders", "elections/")).toBe(false);
  });
});

describe("watch events as hints", () => {
  const watched = { prefix: "e/", layout: "go-election" as const, mustBeHeld: false };

  it("a PUT is a change hint; a DELETE before the lease's end is a release, at or after it an expiry", () => {
    const index = createKeyIndex();
    const put = toHint({ type: "PUT", kv: kv("e/x/2040a20d2615a405", "pod-a", 5, LEASE_A) }, watched, index, 1_000);
    expect(put).toEqual({ key: "e/x", kind: "change", event: "PUT", at: new Date(1_000).toISOString() });
    index.setLease(leaseRead(LEASE_A, 60, 0));
    const early = createKeyIndex();
    early.remember("e/x/2040a20d2615a405", "e/x", LEASE_A);
    early.setLease(leaseRead(LEASE_A, 60, 0));
    expect(toHint({ type: "DELETE", kv: kv("e/x/2040a20d2615a405", "", 0, "0") }, watched, early, 30_000)).toMatchObject({
      key: "e/x",
      kind: "release",
      event: "DELETE",
    });
    expect(toHint({ type: "DELETE", kv: kv("e/x/2040a20d2615a405", "", 0, "0") }, watched, index, 60_000)).toMatchObject({
      key: "e/x",
      kind: "expiry",
      event: "DELETE",
    });
  });

  it("a DELETE whose lease etcd still has is a release however late against the known expiry; a lease gone falls back on it", () => {
    const index = () => {
      const known = createKeyIndex();
      known.remember("e/x/2040a20d2615a405", "e/x", LEASE_A);
      known.setLease(leaseRead(LEASE_A, 60, 0));
      return known;
    };
    const deleted = { type: "DELETE" as const, kv: kv("e/x/2040a20d2615a405", "", 0, "0") };
    expect(toHint(deleted, watched, index(), 90_000, "alive")).toMatchObject({ key: "e/x", kind: "release", event: "DELETE" });
    expect(toHint(deleted, watched, index(), 90_000, "gone")).toMatchObject({ key: "e/x", kind: "expiry", event: "DELETE" });
    expect(toHint(deleted, watched, index(), 30_000, "gone")).toMatchObject({ key: "e/x", kind: "release", event: "DELETE" });
  });

  it("a DELETE of a key never read is a release of the held thing its name says", () => {
    expect(toHint({ type: "DELETE", kv: kv("e/y/2040a20d2615a406", "", 0, "0") }, watched, createKeyIndex(), 0)).toMatchObject({
      key: "e/y",
      kind: "release",
      event: "DELETE",
    });
  });

  it("a PUT of a key that is no contender is no hint", () => {
    expect(toHint({ type: "PUT", kv: kv("e/config", "{}", 5, "0") }, watched, createKeyIndex(), 0)).toBeNull();
  });
});

describe("when a lease's TTL is read again", () => {
  it("a lease never read, or one known to have less than half its granted TTL (or two polls) left, is read; one far from its end is not", () => {
    const index = createKeyIndex();
    index.remember("e/x/2040a20d2615a405", "e/x", LEASE_A);
    expect(isLeaseReadDue(index.leaseOf(LEASE_A), 0, 10_000)).toBe(true);
    index.setLease(leaseRead(LEASE_A, 59, 0));
    expect(isLeaseReadDue(index.leaseOf(LEASE_A), 20_000, 10_000)).toBe(false); // 39 s known left of 60
    expect(isLeaseReadDue(index.leaseOf(LEASE_A), 30_000, 10_000)).toBe(true); // 29 s: under half
    index.setLease(leaseRead(LEASE_A, 9, 0, 10));
    expect(isLeaseReadDue(index.leaseOf(LEASE_A), 0, 10_000)).toBe(true); // a short lease: every poll
  });

  it("a lease read after it ended keeps its last known expiry; the lease is forgotten with its last key", () => {
    const index = createKeyIndex();
    index.remember("e/x/2040a20d2615a405", "e/x", LEASE_A);
    index.setLease(leaseRead(LEASE_A, 10, 0));
    index.setLease(leaseRead(LEASE_A, -1, 11_000));
    expect(index.leaseExpiryOf(LEASE_A)).toBe(10_000);
    index.forget("e/x/2040a20d2615a405");
    expect(index.leaseOf(LEASE_A)).toBeUndefined();
  });
});
