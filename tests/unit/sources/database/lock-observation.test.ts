import { describe, expect, it } from "vitest";

import { type KeyName, nameKeys } from "@/lib/sources/database/advisory-keys";
import type { AdvisoryLockRow } from "@/lib/sources/database/advisory-lock-rows";
import { groupRows, parseSessionToken, toFreeObservation, toHoldObservation } from "@/lib/sources/database/lock-observation";

const T0 = Date.parse("2026-12-07T02:00:00.000Z");
const at = (ms: number) => new Date(T0 + ms);

function row(fields: Partial<AdvisoryLockRow> & Pick<AdvisoryLockRow, "lockKey" | "pid">): AdvisoryLockRow {
  return {
    database: "jobs",
    keyForm: fields.lockKey.includes(",") ? 2 : 1,
    mode: "ExclusiveLock",
    isGranted: true,
    waitStart: null,
    applicationName: `app-${fields.pid}`,
    user: "app",
    clientAddr: "10.0.0.7",
    backendStart: at(-fields.pid * 1_000),
    xactStart: null,
    state: "idle",
    stateChange: at(-500),
    blockedBy: null,
    ...fields,
  };
}

const names = nameKeys([{ key: "42", name: "daily-report", mustBeHeld: true }], "jobs");
const context = { namesOf: (database: string) => (database === "jobs" ? names : new Map<string, KeyName>()), idleInTransactionMaxMs: 60_000, observedMs: T0 };

function observe(rows: AdvisoryLockRow[]) {
  return [...groupRows(rows, context).values()].map((group) => toHoldObservation(group, context));
}

describe("the observation of an advisory lock", () => {
  it("a named key: its holder's session and token, no TTL, the waiters in the order they began waiting", () => {
    const [obs, ...rest] = observe([
      row({ lockKey: "42", pid: 30, isGranted: false, waitStart: at(-1_000), state: "active", blockedBy: [10, 20] }),
      row({ lockKey: "42", pid: 10 }),
      row({ lockKey: "42", pid: 20, isGranted: false, waitStart: at(-2_000), state: "active", blockedBy: [10] }),
    ]);
    expect(rest).toEqual([]);
    expect(obs).toMatchObject({
      resourceKey: "jobs/daily-report",
      pattern: "*/daily-report",
      holder: "app-10 pid 10",
      holderToken: `10@${at(-10_000).toISOString()}`,
      expiresAt: null,
      ttlMs: null,
      waiters: ["app-20 pid 20", "app-30 pid 30"],
      observedAt: at(0).toISOString(),
      isSplit: false,
    });
    expect(obs!.details).toMatchObject({
      database: "jobs",
      key: "42",
      keyForm: "bigint",
      name: "daily-report",
      mode: "ExclusiveLock",
      holderSession: { pid: 10, applicationName: "app-10", clientAddr: "10.0.0.7", sessionStartedAt: at(-10_000).toISOString(), state: "idle" },
      waiting: [
        { pid: 20, waitingSince: at(-2_000).toISOString(), blockedBy: [10] },
        { pid: 30, waitingSince: at(-1_000).toISOString(), blockedBy: [10, 20] },
      ],
    });
    expect(obs!.details).not.toHaveProperty("idleInTransactionForMs");
  });

  it("an unnamed key shows as its number (two int4 keys as 'a,b'), per database", () => {
    const observations = observe([row({ lockKey: "7,12", pid: 5 }), row({ lockKey: "42", pid: 6, database: "billing" })]);
    expect(observations.map((o) => [o.resourceKey, o.pattern, o.details.keyForm])).toEqual([
      ["jobs/7,12", "*", "int4-pair"],
      ["billing/42", "*", "bigint"],
    ]);
  });

  it("a shared lock: the oldest session holds it, the others are listed; a newcomer does not change the token", () => {
    const [obs] = observe([row({ lockKey: "500", pid: 3, mode: "ShareLock" }), row({ lockKey: "500", pid: 9, mode: "ShareLock" })]);
    expect(obs!.holder).toBe("app-9 pid 9");
    expect(obs!.details).toMatchObject({ mode: "ShareLock", sharedHolders: [{ pid: 3 }] });
  });

  it("a session holding a key twice (session and transaction level) is one holder", () => {
    const [obs] = observe([row({ lockKey: "42", pid: 4 }), row({ lockKey: "42", pid: 4 })]);
    expect(obs!.details).not.toHaveProperty("sharedHolders");
  });

  it("a holder idle in transaction past the bound is the stuck lock; under it, only the figure", () => {
    const [stuck] = observe([row({ lockKey: "42", pid: 4, state: "idle in transaction", stateChange: at(-61_000) })]);
    expect(stuck!.details).toMatchObject({ idleInTransactionForMs: 61_000, isStuckIdleInTransaction: true });
    const [fine] = observe([row({ lockKey: "42", pid: 4, state: "idle in transaction", stateChange: at(-1_000) })]);
    expect(fine!.details).toMatchObject({ idleInTransactionForMs: 1_000, isStuckIdleInTransaction: false });
  });

  it("without pg_read_all_stats (no backend start, no state): the holder by pid and application name, the token by pid", () => {
    const [obs] = observe([row({ lockKey: "42", pid: 77, backendStart: null, clientAddr: null, state: null, stateChange: null })]);
    expect(obs).toMatchObject({ holder: "app-77 pid 77", holderToken: "77" });
    expect(parseSessionToken("77")).toEqual({ pid: 77, backendStart: null });
    expect(parseSessionToken(obs!.holderToken!.concat("@2026-12-07T01:00:00.000Z"))).toEqual({ pid: 77, backendStart: "2026-12-07T01:00:00.000Z" });
  });

  it("a lock no session holds or waits for any more is free, its key kept in the details", () => {
    const [group] = groupRows([row({ lockKey: "42", pid: 1 })], context).values();
    const free = toFreeObservation({ key: "jobs/daily-report", pattern: "*/daily-report" }, T0, group);
    expect(free).toMatchObject({
      holder: null,
      holderToken: null,
      waiters: [],
      expiresAt: null,
      details: { database: "jobs", key: "42", name: "daily-report" },
    });
  });
});
