import { describe, expect, it } from "vitest";

import { detectHoldChanges } from "@/lib/poller/detect-hold-changes";
import { toLockItem } from "@/lib/sources/dynamodb/lock-item";
import { DATA_PREVIEW_CHARS, toAbsentObservation, toHoldObservation } from "@/lib/sources/dynamodb/lock-observation";
import { createVersionClock } from "@/lib/sources/dynamodb/version-clock";

const keys = { partitionKeyName: "key" };
const T0 = Date.parse("2026-11-24T12:00:00.000Z");

function item(fields: { owner?: string; lease?: string; version?: string; released?: boolean; data?: Uint8Array; sort?: string }) {
  const parsed = toLockItem(
    {
      key: { S: "daily-job" },
      ...(fields.sort !== undefined ? { shard: { S: fields.sort } } : {}),
      ...(fields.owner !== undefined ? { ownerName: { S: fields.owner } } : {}),
      leaseDuration: { S: fields.lease ?? "10000" },
      recordVersionNumber: { S: fields.version ?? "v1" },
      ...(fields.released ? { isReleased: { S: "1" } } : {}),
      ...(fields.data ? { data: { B: fields.data } } : {}),
    },
    fields.sort !== undefined ? { ...keys, sortKeyName: "shard" } : keys,
  );
  if (typeof parsed === "string") throw new Error(parsed);
  return parsed;
}

describe("toLockItem", () => {
  it("names a lock with a sort key '<partition>/<sort>' and says when the partition key is missing", () => {
    expect(item({ owner: "pod-a", sort: "7" })).toMatchObject({ resourceKey: "daily-job/7", partitionKey: "daily-job", sortKey: "7", leaseDurationMs: 10_000 });
    // The Java client marks a release with the string "1"; other ports with a BOOL.
    expect(toLockItem({ key: { S: "k" }, isReleased: { S: "1" } }, keys)).toMatchObject({ isReleased: true });
    expect(toLockItem({ key: { S: "k" }, isReleased: { BOOL: true } }, keys)).toMatchObject({ isReleased: true });
    expect(toLockItem({ key: { S: "k" }, isReleased: { S: "0" } }, keys)).toMatchObject({ isReleased: false });
    expect(toLockItem({ id: { S: "x" } }, keys)).toBe('an item has no "key" attribute: is partitionKeyName right?');
  });
});

describe("toHoldObservation", () => {
  it("holds while the version is younger than the lease, expiring a lease after Baton first saw it", () => {
    const obs = toHoldObservation({ item: item({ owner: "pod-a", version: "v1" }), pattern: "locks", firstSeenMs: T0, observedMs: T0 + 4_000 });
    expect(obs).toMatchObject({
      holder: "pod-a",
      holderToken: "pod-a",
      waiters: [],
      ttlMs: 6_000,
      expiresAt: "2026-11-24T12:00:10.000Z",
      observedAt: "2026-11-24T12:00:04.000Z",
    });
    expect(obs.details).toEqual({ recordVersionNumber: "v1", leaseDurationMs: 10_000, versionUnchangedForMs: 4_000, isReleased: false });
    expect(obs.previousEnding).toBeUndefined();
  });

  it("is expired once the version is unchanged for the whole lease", () => {
    const obs = toHoldObservation({ item: item({ owner: "pod-a" }), pattern: "locks", firstSeenMs: T0, observedMs: T0 + 10_000 });
    expect(obs).toMatchObject({ holder: null, holderToken: null, expiresAt: null, previousEnding: "EXPIRED", details: { versionUnchangedForMs: 10_000 } });
  });

  it("is released when isReleased is true, however young its version", () => {
    const obs = toHoldObservation({ item: item({ owner: "pod-a", released: true }), pattern: "locks", firstSeenMs: T0, observedMs: T0 });
    expect(obs).toMatchObject({ holder: null, previousEnding: "RELEASED", details: { isReleased: true } });
  });

  it("shows the sort key and the data, base64 and shortened", () => {
    const long = toHoldObservation({
      item: item({ owner: "pod-a", sort: "7", data: new Uint8Array(200).fill(65) }),
      pattern: "locks",
      firstSeenMs: T0,
      observedMs: T0,
    });
    expect(long.details.sortKey).toBe("7");
    expect(long.details.data).toBe(`${Buffer.alloc(200, 65).toString("base64").slice(0, DATA_PREVIEW_CHARS)}...`);
    const short = toHoldObservation({ item: item({ owner: "pod-a", data: Buffer.from("hello") }), pattern: "locks", firstSeenMs: T0, observedMs: T0 });
    expect(short.details.data).toBe("aGVsbG8=");
  });
});

describe("the version clock with change detection", () => {
  function read(clock: ReturnType<typeof createVersionClock>, fields: Parameters<typeof item>[0], atMs: number) {
    const lock = item(fields);
    return toHoldObservation({
      item: lock,
      pattern: "locks",
      firstSeenMs: clock.firstSeen(lock.resourceKey, lock.recordVersionNumber!, atMs),
      observedMs: atMs,
    });
  }

  it("keeps a heartbeating holder, and reports a crashed one as expired, not released", () => {
    const clock = createVersionClock();
    let state = detectHoldChanges(undefined, read(clock, { owner: "pod-a", version: "v1" }, T0)).next;
    // Heartbeats: a new version every few seconds, the same owner: no change.
    for (let i = 1; i <= 5; i++) {
      const step = detectHoldChanges(state, read(clock, { owner: "pod-a", version: `v${i + 1}` }, T0 + i * 3_000));
      expect(step.changes).toEqual([]);
      state = step.next;
    }
    // Crashed after v6 (seen at T0 + 15 s): unchanged for the lease from then on.
    const before = detectHoldChanges(state, read(clock, { owner: "pod-a", version: "v6" }, T0 + 24_000));
    expect(before.changes).toEqual([]);
    const after = detectHoldChanges(before.next, read(clock, { owner: "pod-a", version: "v6" }, T0 + 25_000));
    expect(after.changes).toMatchObject([{ kind: "HOLDER_LOST", ending: "EXPIRED", fromHolder: "pod-a", toHolder: null }]);
  });

  it("reports a new owner as a holder change and a released item as released", () => {
    const clock = createVersionClock();
    const first = detectHoldChanges(undefined, read(clock, { owner: "pod-a", version: "v1" }, T0)).next;
    const taken = detectHoldChanges(first, read(clock, { owner: "pod-b", version: "v2" }, T0 + 1_000));
    expect(taken.changes).toMatchObject([{ kind: "HOLDER_CHANGED", fromHolder: "pod-a", toHolder: "pod-b" }]);
    const released = detectHoldChanges(taken.next, read(clock, { owner: "pod-b", version: "v3", released: true }, T0 + 2_000));
    expect(released.changes).toMatchObject([{ kind: "HOLDER_LOST", ending: "RELEASED" }]);
  });

  it("starts every version's clock again after a reset (a read that failed), so an outage is no expiry", () => {
    const clock = createVersionClock();
    const state = detectHoldChanges(undefined, read(clock, { owner: "pod-a", version: "v1" }, T0)).next;
    clock.reset();
    // Back 60 s later, longer than the lease, the same version: Baton cannot tell it stopped.
    const back = detectHoldChanges(state, read(clock, { owner: "pod-a", version: "v1" }, T0 + 60_000));
    expect(back.changes).toEqual([]);
    expect(back.next).toMatchObject({ holder: "pod-a", details: { versionUnchangedForMs: 0 } });
  });

  it("forgets the locks whose items are gone", () => {
    const clock = createVersionClock();
    expect(clock.firstSeen("a", "v1", T0)).toBe(T0);
    clock.retain(new Set(["b"]));
    expect(clock.firstSeen("a", "v1", T0 + 5_000)).toBe(T0 + 5_000);
  });

  it("reads an item deleted on release as free, with no details", () => {
    expect(toAbsentObservation("daily-job", "locks", T0)).toMatchObject({ holder: null, holderToken: null, details: {}, waiters: [] });
  });
});
