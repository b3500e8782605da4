import { describe, expect, it } from "vitest";

import { rankPatroniStandbys, readPatroniHistory, readPatroniMember, readPatroniRequest } from "@/lib/sources/patroni-members";

// What Patroni writes about a cluster, as both kinds that read Patroni (etcd, ZooKeeper) read it.
// The member data below is Patroni 3.0.2's own, from a real pair on this machine.

const member = (name: string, fields: Record<string, unknown>) => readPatroniMember(name, JSON.stringify(fields));

describe("a Patroni member's data", () => {
  it("reads Patroni's JSON, and keeps a member whose data is not Patroni's as unreadable", () => {
    expect(
      member("pg0", {
        conn_url: "postgres://127.0.0.1:15432/postgres",
        api_url: "http://127.0.0.1:15008/patroni",
        state: "running",
        role: "master",
        version: "3.0.2",
        xlog_location: 50331648,
        timeline: 1,
      }),
    ).toEqual({
      name: "pg0",
      role: "master",
      state: "running",
      timeline: 1,
      xlogLocation: 50331648,
      apiUrl: "http://127.0.0.1:15008/patroni",
      isNoFailover: false,
      isUnreadable: false,
    });
    expect(readPatroniMember("pg9", "not json")).toMatchObject({ name: "pg9", role: null, isUnreadable: true });
    expect(readPatroniMember("pg9", null)).toMatchObject({ isUnreadable: true });
    expect(member("pg2", { role: "replica", tags: { nofailover: true } }).isNoFailover).toBe(true);
  });

  it("reads a pending switchover, and none from {}; the history's last line", () => {
    expect(readPatroniRequest('{"leader":"pg0","member":"pg1"}')).toEqual({ leader: "pg0", member: "pg1", scheduledAt: null });
    expect(readPatroniRequest("{}")).toBeNull();
    expect(readPatroniRequest(null)).toBeNull();
    expect(readPatroniHistory('[[1,25165984,"no recovery target specified","2026-12-07T05:30:01+00:00","pg1"]]')).toEqual({
      entries: 1,
      lastReason: "no recovery target specified",
      lastLeader: "pg1",
    });
    expect(readPatroniHistory("oops")).toBeNull();
  });
});

describe("who Patroni would promote", () => {
  const members = [
    member("pg0", { role: "master", state: "running", xlog_location: 1_000 }),
    member("pg1", { role: "replica", state: "streaming", xlog_location: 400 }),
    member("pg2", { role: "replica", state: "streaming", xlog_location: 900 }),
    member("pg3", { role: "replica", state: "stopped", xlog_location: 1_000 }),
    member("pg4", { role: "replica", state: "streaming", xlog_location: 1_000, tags: { nofailover: true } }),
    readPatroniMember("pg5", "garbage"),
  ];

  it("ranks running replicas by lag, then the rest; never a nofailover or unreadable member", () => {
    const ranked = rankPatroniStandbys(members, "pg0", null);
    expect(ranked.primary?.name).toBe("pg0");
    expect(ranked.standbys.map((m) => m.name)).toEqual(["pg1", "pg2", "pg3", "pg4", "pg5"]);
    expect(Object.fromEntries(ranked.lagBytes)).toEqual({ pg1: 600, pg2: 100, pg3: 0, pg4: 0, pg5: null });
    expect(ranked.candidates.map((m) => m.name)).toEqual(["pg2", "pg1", "pg3"]);
  });

  it("puts the member a pending switchover names first; with no primary read, lag is unknown", () => {
    expect(rankPatroniStandbys(members, "pg0", "pg1").candidates.map((m) => m.name)).toEqual(["pg1", "pg2", "pg3"]);
    const leaderless = rankPatroniStandbys(members, null, null);
    expect(leaderless.primary).toBeUndefined();
    expect([...leaderless.lagBytes.values()].every((lag) => lag === null)).toBe(true);
  });
});
