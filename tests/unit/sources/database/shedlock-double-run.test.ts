import { describe, expect, it } from "vitest";

import { type TableLockMemory, rememberRow, toTableObservation } from "@/lib/sources/database/lock-table-observation";
import { toShedlockRows } from "@/lib/sources/database/lock-table-rows";

// A ShedLock job that outran its lockAtMostFor, read by read as the poller sees the table: node A's
// hold expires unreleased, node B takes the row, and A's release (an UPDATE by name alone) lands on
// B's hold before or after B's own. The hold is then released twice: A ran beside B, a double run.

const T0 = Date.parse("2026-12-07T03:00:00.000Z");
const SECOND = 1_000;
const entry = { format: "shedlock", table: "shedlock", timeZone: "UTC" } as const;
const ref = { key: "jobs/shedlock/nightly", pattern: "*/shedlock/*" };

/** The table's one row at `nowMs`, as the poller reads it. */
function rowAt(nowMs: number, lockedBy: string, lockedAtMs: number, lockUntilMs: number) {
  return toShedlockRows(entry, [
    { db_now: new Date(nowMs), database: "jobs", name: "nightly", locked_by: lockedBy, locked_at: new Date(lockedAtMs), lock_until: new Date(lockUntilMs) },
  ]).rows[0]!;
}

/** Reads the rows one after the other, as the poller would, and returns each read's observation. */
function readAll(reads: { nowMs: number; row: ReturnType<typeof rowAt> }[]) {
  let memory: TableLockMemory | undefined;
  return reads.map(({ nowMs, row }) => {
    const observation = toTableObservation(ref, row, { dbNowMs: nowMs, observedMs: nowMs, previous: memory, lastDetails: undefined });
    memory = rememberRow(memory, row, nowMs);
    return observation;
  });
}

const aStart = T0;
const aUntil = T0 + 10 * SECOND;
const bStart = T0 + 12 * SECOND;
const bUntil = bStart + 10 * SECOND;

describe("a ShedLock hold released twice", () => {
  it("A expired unreleased, B took the row, A's release then B's: one double run, B beside A from B's start", () => {
    const observations = readAll([
      { nowMs: T0 + SECOND, row: rowAt(T0 + SECOND, "node-a", aStart, aUntil) },
      { nowMs: T0 + 11 * SECOND, row: rowAt(T0 + 11 * SECOND, "node-a", aStart, aUntil) },
      { nowMs: T0 + 13 * SECOND, row: rowAt(T0 + 13 * SECOND, "node-b", bStart, bUntil) },
      // A's job ends: its unlock sets lock_until to now on B's row.
      { nowMs: T0 + 16 * SECOND, row: rowAt(T0 + 16 * SECOND, "node-b", bStart, T0 + 15 * SECOND) },
      // B's job ends: lock_until written again.
      { nowMs: T0 + 19 * SECOND, row: rowAt(T0 + 19 * SECOND, "node-b", bStart, T0 + 18 * SECOND) },
      { nowMs: T0 + 21 * SECOND, row: rowAt(T0 + 21 * SECOND, "node-b", bStart, T0 + 18 * SECOND) },
    ]);
    expect(observations.map((o) => o.holder)).toEqual(["node-a", null, "node-b", null, null, null]);
    expect(observations.map((o) => o.concurrentHolds !== undefined)).toEqual([false, false, false, false, true, false]);
    expect(observations[4]!.concurrentHolds).toEqual({
      seenBy: "shedlock",
      holder: { holder: "node-b", token: `shedlock:node-b@${new Date(bStart).toISOString()}`, since: new Date(bStart).toISOString() },
      others: [{ holder: "node-a", token: `shedlock:node-a@${new Date(aStart).toISOString()}`, since: new Date(aStart).toISOString() }],
    });
  });

  it("A expired while no read came between, then B's two releases: still the double run", () => {
    const observations = readAll([
      { nowMs: T0 + SECOND, row: rowAt(T0 + SECOND, "node-a", aStart, aUntil) },
      { nowMs: T0 + 13 * SECOND, row: rowAt(T0 + 13 * SECOND, "node-b", bStart, bUntil) },
      { nowMs: T0 + 16 * SECOND, row: rowAt(T0 + 16 * SECOND, "node-b", bStart, T0 + 15 * SECOND) },
      { nowMs: T0 + 19 * SECOND, row: rowAt(T0 + 19 * SECOND, "node-b", bStart, T0 + 18 * SECOND) },
    ]);
    expect(observations[1]!.previousEnding).toBe("EXPIRED");
    expect(observations[3]!.concurrentHolds?.others.map((other) => other.holder)).toEqual(["node-a"]);
  });

  it("A released its hold (lock_until moved back), B took the row and released it once: no double run", () => {
    const observations = readAll([
      { nowMs: T0 + SECOND, row: rowAt(T0 + SECOND, "node-a", aStart, aUntil) },
      { nowMs: T0 + 4 * SECOND, row: rowAt(T0 + 4 * SECOND, "node-a", aStart, T0 + 3 * SECOND) },
      { nowMs: T0 + 13 * SECOND, row: rowAt(T0 + 13 * SECOND, "node-b", bStart, bUntil) },
      { nowMs: T0 + 16 * SECOND, row: rowAt(T0 + 16 * SECOND, "node-b", bStart, T0 + 15 * SECOND) },
      { nowMs: T0 + 19 * SECOND, row: rowAt(T0 + 19 * SECOND, "node-b", bStart, T0 + 15 * SECOND) },
    ]);
    expect(observations.some((o) => o.concurrentHolds !== undefined)).toBe(false);
  });

  it("A expired unreleased and its node never released: B's one release is no double run", () => {
    const observations = readAll([
      { nowMs: T0 + SECOND, row: rowAt(T0 + SECOND, "node-a", aStart, aUntil) },
      { nowMs: T0 + 13 * SECOND, row: rowAt(T0 + 13 * SECOND, "node-b", bStart, bUntil) },
      { nowMs: T0 + 16 * SECOND, row: rowAt(T0 + 16 * SECOND, "node-b", bStart, T0 + 15 * SECOND) },
      { nowMs: T0 + 25 * SECOND, row: rowAt(T0 + 25 * SECOND, "node-b", bStart, T0 + 15 * SECOND) },
    ]);
    expect(observations.some((o) => o.concurrentHolds !== undefined)).toBe(false);
  });

  it("a release under lockAtLeastFor (still ahead) then an extension by the holder: no double run", () => {
    const observations = readAll([
      { nowMs: T0 + SECOND, row: rowAt(T0 + SECOND, "node-a", aStart, aUntil) },
      { nowMs: T0 + 13 * SECOND, row: rowAt(T0 + 13 * SECOND, "node-b", bStart, T0 + 60 * SECOND) },
      // B's keep-alive moves lock_until on while it is still ahead: never a release.
      { nowMs: T0 + 16 * SECOND, row: rowAt(T0 + 16 * SECOND, "node-b", bStart, T0 + 30 * SECOND) },
      { nowMs: T0 + 19 * SECOND, row: rowAt(T0 + 19 * SECOND, "node-b", bStart, T0 + 40 * SECOND) },
    ]);
    expect(observations.some((o) => o.concurrentHolds !== undefined)).toBe(false);
  });
});
