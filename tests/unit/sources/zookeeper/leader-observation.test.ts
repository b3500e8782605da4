import { describe, expect, it } from "vitest";

import { type LeaderNodeReading, tallyElections, toLeaderNodeObservation } from "@/lib/sources/zookeeper/leader-observation";
import { parseSessionDump } from "@/lib/sources/zookeeper/session-dump";
import { kafkaTargets } from "@/lib/sources/zookeeper/systems/kafka";

const at = "2026-12-07T10:00:00.000Z";
const kafka = kafkaTargets({ system: "kafka", root: "/" })[0]!.role;

function reading(data: Buffer | string | null, overrides: Partial<LeaderNodeReading> = {}, session: string | null = "0x1000a2b3c0002"): LeaderNodeReading {
  return {
    path: "/controller",
    pattern: "/controller",
    node:
      data === null
        ? null
        : {
            data: typeof data === "string" ? Buffer.from(data) : data,
            stat: { ephemeralOwner: session, ctimeMs: Date.parse("2026-12-07T09:59:00.000Z"), czxid: "0x1a", numChildren: 0 },
          },
    standbys: null,
    electionCount: null,
    observedAt: at,
    ...overrides,
  };
}

const noSessions = { dump: null, batonSessionTimeoutMs: 30_000 };

describe("toLeaderNodeObservation", () => {
  it("a node that exists is held; its token is its session and creation zxid, its holder what its data says", () => {
    const { observation, failure } = toLeaderNodeObservation(reading("pg1"), noSessions, null);
    expect(failure).toBeNull();
    expect(observation).toMatchObject({
      resourceKey: "/controller",
      holder: "pg1",
      holderToken: "0x1000a2b3c0002/0x1a",
      waiters: [],
      expiresAt: null,
      details: {
        recipe: "ephemeral-node",
        lockNodeExists: true,
        holderSessionId: "0x1000a2b3c0002",
        holderNodeCzxid: "0x1a",
        holderNodeCreatedAt: "2026-12-07T09:59:00.000Z",
      },
    });
  });

  it("the same member elected again (same session, a new node) is a new hold: the token names the node's zxid", () => {
    const first = toLeaderNodeObservation(reading("pg1"), noSessions, null).observation;
    const again = reading("pg1");
    again.node!.stat.czxid = "0x2f";
    expect(toLeaderNodeObservation(again, noSessions, null).observation.holderToken).not.toBe(first.holderToken);
  });

  it("a path that does not exist is free", () => {
    const { observation } = toLeaderNodeObservation(reading(null), noSessions, kafka);
    expect(observation).toMatchObject({ holder: null, holderToken: null, waiters: [], details: { lockNodeExists: false, holderSessionId: null } });
  });

  it("Kafka's controller: the broker in Kafka's words, the other live brokers as standbys, the controller epoch", () => {
    const { observation } = toLeaderNodeObservation(
      reading('{"version":2,"brokerid":2,"timestamp":"1765101540000","kraftControllerEpoch":-1}', {
        standbys: ["broker 1", "broker 2", "broker 3"],
        electionCount: 7,
      }),
      noSessions,
      kafka,
    );
    expect(observation).toMatchObject({
      holder: "broker 2",
      waiters: ["broker 1", "broker 3"],
      details: {
        system: "kafka",
        role: "Kafka controller",
        holderData: { brokerId: 2, electedAt: "2025-12-07T09:59:00.000Z", version: 2, kraftControllerEpoch: -1 },
        standbys: ["broker 1", "broker 3"],
        electionCount: 7,
        electionCountName: "controller epoch",
      },
    });
  });

  it.each([
    ["non-JSON", Buffer.from("broker two"), "not JSON"],
    ["JSON without a broker id", Buffer.from('{"version":2}'), "JSON without a numeric brokerid"],
    ["1 MB of binary", Buffer.alloc(1_000_000, 0xa7), "not JSON"],
  ])("data its parser cannot read (%s) keeps the hold, named by its session, and says why once", (_name, data, message) => {
    const { observation, failure } = toLeaderNodeObservation(reading(data), noSessions, kafka);
    expect(observation).toMatchObject({ holder: "0x1000a2b3c0002", holderToken: "0x1000a2b3c0002/0x1a", details: { lockNodeExists: true } });
    expect(String(observation.details.holderDataUnread)).toContain(message);
    expect(failure).toMatchObject({ path: "/controller" });
  });

  it("without a system, binary data names the session; empty data too (without a complaint)", () => {
    expect(toLeaderNodeObservation(reading(Buffer.from([0xff, 0, 0, 0, 3, 1, 2, 3])), noSessions, null)).toMatchObject({
      observation: { holder: "0x1000a2b3c0002" },
      failure: { path: "/controller", message: "its 8 bytes of data are not text" },
    });
    expect(toLeaderNodeObservation(reading(""), noSessions, null)).toMatchObject({ observation: { holder: "0x1000a2b3c0002" }, failure: null });
  });

  it("the server's session deadline gives the hold's expiry", () => {
    const dump = parseSessionDump(["Session Sets (1)/(1):", "1 expire at Mon Dec 07 10:00:06 UTC 2026:", "\t0x1000a2b3c0002", ""].join("\n"));
    expect(toLeaderNodeObservation(reading("pg1"), { dump, batonSessionTimeoutMs: null }, null).observation).toMatchObject({
      expiresAt: "2026-12-07T10:00:06.000Z",
      ttlMs: 6_000,
      details: { sessionExpiry: "server dump" },
    });
  });
});

describe("tallyElections", () => {
  it("counts the elections between two reads that Baton did not see, and keeps the figure for the hold", () => {
    let tally = tallyElections(undefined, "a/1", 5);
    expect(tally.missed).toBeNull();
    tally = tallyElections(tally, "b/2", 6);
    expect(tally.missed).toBe(0);
    tally = tallyElections(tally, "b/2", 6);
    expect(tally.missed).toBe(0);
    // Two controllers came and went between two reads: epoch 7 and 8 unseen, 9 is the one seen.
    tally = tallyElections(tally, "c/3", 9);
    expect(tally).toEqual({ token: "c/3", count: 9, missed: 2 });
    // Free, with one election unseen meanwhile; then a new holder.
    tally = tallyElections(tally, null, 10);
    expect(tally.missed).toBe(1);
    tally = tallyElections(tally, null, 11);
    expect(tally.missed).toBe(2);
    tally = tallyElections(tally, "d/4", 12);
    expect(tally.missed).toBe(0);
  });

  it("an unreadable count tells nothing", () => {
    expect(tallyElections(tallyElections(undefined, "a/1", null), "b/2", 3).missed).toBeNull();
  });
});
