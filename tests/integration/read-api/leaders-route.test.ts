import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GET } from "@/app/api/v1/leaders/route";
import type { LeadersBoard } from "@/lib/board/board-types";
import { answer, CLUSTER, createChange, createCluster, createResource, openDb, OTHER_CLUSTER, RUN } from "@/tests/integration/read-api/read-api-kit";

const db = openDb();
const tenant = `t${RUN}`;
const topic = (name: string, ns = "orders") => `persistent://${tenant}/${ns}/${name}`;
const leaders = (query = "") => answer(GET(new Request(`http://127.0.0.1/api/v1/leaders${query}`), {}));

beforeAll(async () => {
  const clusterId = await createCluster(db, CLUSTER);
  await createCluster(db, OTHER_CLUSTER);
  const now = Date.now();
  // Calm: a 2-partition Failover subscription, each partition held.
  await createResource(db, clusterId, { topic: topic("calm"), partition: 0, subscription: "calm-sub", holder: "calm-a", consumers: ["calm-a", "calm-b"] });
  await createResource(db, clusterId, { topic: topic("calm"), partition: 1, subscription: "calm-sub", holder: "calm-b", consumers: ["calm-a", "calm-b"] });
  // Leaderless, non-partitioned.
  await createResource(db, clusterId, { topic: topic("jobs"), subscription: "jobs-sub", holder: null, consumers: [] });
  // Stale: the last known holder kept, polls failing.
  await createResource(db, clusterId, {
    topic: topic("stale", "audit"),
    subscription: "stale-sub",
    holder: "stale-a",
    staleSince: new Date(now - 30_000),
    lastError: "cannot reach 127.0.0.1:8080: ECONNREFUSED",
  });
  // Flapping: six changes in the window, outside any deployment.
  // Its holder took it at the newest change (30 s ago), as the poller writes it: flapping lasts until it has kept it a minute.
  const flappy = await createResource(db, clusterId, {
    topic: topic("flappy"),
    subscription: "flappy-sub",
    holder: "flap-a",
    holderSince: new Date(now - 30_000),
    consumers: ["flap-a", "flap-b"],
  });
  for (let i = 0; i < 6; i++)
    await createChange(db, clusterId, flappy, {
      kind: "HOLDER_CHANGED",
      from: i % 2 ? "flap-b" : "flap-a",
      to: i % 2 ? "flap-a" : "flap-b",
      at: new Date(now - (i + 1) * 30_000),
    });
  // Old changes and consumer-set changes do not count towards flapping.
  await createChange(db, clusterId, flappy, { kind: "HOLDER_CHANGED", from: "flap-a", to: "flap-b", at: new Date(now - 3_600_000) });
  await createChange(db, clusterId, flappy, { kind: "CONSUMERS_CHANGED", from: "flap-a", to: "flap-a", at: new Date(now - 10_000) });
  // Key_Shared with a gap in its hash ranges.
  await createResource(db, clusterId, {
    topic: topic("keyed"),
    subscription: "keyed-sub",
    subscriptionType: "Key_Shared",
    consumers: ["k1", "k2"],
    hashRanges: {
      space: 65536,
      consumers: [
        { consumer: "k1", ranges: [[0, 30000]] },
        { consumer: "k2", ranges: [[40000, 65535]] },
      ],
    },
  });
  // Gone: hidden unless asked for. Shared: never on the board.
  await createResource(db, clusterId, { topic: topic("deleted"), subscription: "gone-sub", holder: "g", goneAt: new Date(now - 60_000) });
  await createResource(db, clusterId, { topic: topic("shared"), subscription: "shared-sub", subscriptionType: "Shared", consumers: ["s1"] });
});

afterAll(async () => {
  await db.cluster.deleteMany({ where: { name: { in: [CLUSTER, OTHER_CLUSTER] } } });
  await db.$disconnect();
});

describe("GET /api/v1/leaders", () => {
  it("answers every subscription in scope, in name order (cluster, topic, subscription), with plain JSON", async () => {
    const { status, body } = await leaders(`?cluster=${CLUSTER}`);
    expect(status).toBe(200);
    const board = body as unknown as LeadersBoard;
    expect(board.thresholds).toEqual({ flapChanges: 4, flapWindowMs: 600_000, stuckSamples: 3, recoveredAfterMs: null });
    expect(board.clusters).toEqual([expect.objectContaining({ name: CLUSTER, pollIntervalMs: 5000, isSilent: false, resourceCount: 6 })]);
    expect(board.subscriptions.map((g) => [g.subscription, g.health])).toEqual([
      ["stale-sub", "unknown"],
      ["calm-sub", "ok"],
      ["flappy-sub", "critical"],
      ["jobs-sub", "critical"],
      ["keyed-sub", "critical"],
    ]);
    const byName = new Map(board.subscriptions.map((g) => [g.subscription, g]));
    expect(byName.get("flappy-sub")!.flags[0]).toMatchObject({ rule: "flapping", label: "Flapping: 6 changes in 10 min" });
    expect(byName.get("flappy-sub")!.partitions[0]!.changesInWindow).toBe(6);
    expect(byName.get("jobs-sub")!.flags[0]).toMatchObject({ rule: "no-active-consumer", label: "No active consumer" });
    expect(byName.get("keyed-sub")!.flags[0]).toMatchObject({ rule: "hash-range-gap" });
    expect(byName.get("keyed-sub")!.partitions[0]!.hashShares).toEqual(
      [
        { consumer: "k2", share: 25536 / 65536 },
        { consumer: "k1", share: 30001 / 65536 },
      ].sort((a, b) => b.share - a.share),
    );
    const stale = byName.get("stale-sub")!.partitions[0]!;
    expect(stale).toMatchObject({
      holder: "stale-a",
      health: "unknown",
      flags: [expect.objectContaining({ rule: "stale", detail: "polls fail: cannot reach 127.0.0.1:8080: ECONNREFUSED" })],
    });
    expect(byName.get("calm-sub")).toMatchObject({ isPartitioned: true, holders: ["calm-a", "calm-b"], idleConsumers: [], flags: [] });
  });

  it("answers each partition's next holder, or why it cannot be computed, and the cluster's prediction score", async () => {
    const board = (await leaders(`?cluster=${CLUSTER}`)).body as unknown as LeadersBoard;
    const byName = new Map(board.subscriptions.map((g) => [g.subscription, g]));
    // Failover over two consumers: whoever does not hold the partition is next.
    expect(byName.get("calm-sub")!.partitions.map((p) => p.next.holder)).toEqual(["calm-b", "calm-a"]);
    expect(byName.get("keyed-sub")!.partitions[0]!.next).toMatchObject({ holder: null, reason: "no-owner-rule", detail: expect.stringMatching(/hash range/) });
    // No consumer left: nobody is next (computed, not refused).
    expect(byName.get("jobs-sub")!.partitions[0]!.next).toEqual({ holder: null, reason: null, detail: null });
    // The flapping rows were written without predictions: nothing scored.
    expect(board.clusters[0]!.predictions).toEqual({ predicted: 0, confirmed: 0, wrong: 0, notPredicted: 0 });
  });

  it("reads a Key_Shared split again when a recorded change moved it (the board keeps splits by lastChangeAt)", async () => {
    const clusterId = await createCluster(db, OTHER_CLUSTER, null);
    await createResource(db, clusterId, {
      topic: topic("moving"),
      subscription: "moving-sub",
      subscriptionType: "Key_Shared",
      consumers: ["k1", "k2"],
      hashRanges: {
        space: 65536,
        consumers: [
          { consumer: "k1", ranges: [[0, 32767]] },
          { consumer: "k2", ranges: [[32768, 65535]] },
        ],
      },
    });
    const shares = async () => {
      const { body } = await leaders(`?cluster=${OTHER_CLUSTER}&subscription=moving-sub`);
      return (body as unknown as LeadersBoard).subscriptions[0]!.partitions[0]!.hashShares;
    };
    expect(await shares()).toEqual([
      { consumer: "k1", share: 0.5 },
      { consumer: "k2", share: 0.5 },
    ]);
    expect(await shares()).toEqual([
      { consumer: "k1", share: 0.5 },
      { consumer: "k2", share: 0.5 },
    ]);
    await db.heldResource.updateMany({
      where: { subscription: "moving-sub", clusterId },
      data: {
        hashRanges: { space: 65536, consumers: [{ consumer: "k1", ranges: [[0, 65535]] }] },
        lastChangeAt: new Date(),
      },
    });
    expect(await shares()).toEqual([{ consumer: "k1", share: 1 }]);
  });

  it("flags a stuck leader from the newest samples only (the database sends the last stuckSamples)", async () => {
    const clusterId = (await db.cluster.findUniqueOrThrow({ where: { name: OTHER_CLUSTER }, select: { id: true } })).id;
    const sample = (minutesAgo: number, backlog: number) => ({
      at: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
      backlog,
      msgRateOut: 0,
      holder: "slow",
    });
    // Grew at each of the last three samples, after an older drop.
    await createResource(db, clusterId, {
      topic: topic("stuck"),
      subscription: "stuck-sub",
      holder: "slow",
      recentSamples: [sample(5, 900), sample(4, 10), sample(3, 20), sample(2, 30), sample(1, 40)],
    });
    // Grew before, but the newest sample fell: draining again.
    await createResource(db, clusterId, {
      topic: topic("draining"),
      subscription: "draining-sub",
      holder: "slow",
      recentSamples: [sample(5, 10), sample(4, 20), sample(3, 30), sample(2, 40), sample(1, 35)],
    });
    const { body } = await leaders(`?cluster=${OTHER_CLUSTER}&q=slow`);
    const bySubscription = new Map((body as unknown as LeadersBoard).subscriptions.map((g) => [g.subscription, g]));
    expect(bySubscription.get("stuck-sub")!.flags).toEqual([
      expect.objectContaining({ rule: "stuck-leader", detail: expect.stringContaining("backlog grew from 20 to 40 over the last 3 samples") }),
    ]);
    expect(bySubscription.get("draining-sub")!.flags).toEqual([]);
  });

  it.each([
    ["a tenant", `?tenant=${tenant}&cluster=${CLUSTER}`, ["stale-sub", "calm-sub", "flappy-sub", "jobs-sub", "keyed-sub"]],
    ["a namespace", `?namespace=${tenant}/audit`, ["stale-sub"]],
    ["an exact topic and subscription", `?topic=${encodeURIComponent(topic("calm"))}&subscription=calm-sub`, ["calm-sub"]],
    ["text in a consumer name", "?q=CALM-B", ["calm-sub"]],
    ["text in the health", `?q=stale&cluster=${CLUSTER}`, ["stale-sub"]],
    ["gone ones too", `?includeGone=true&cluster=${CLUSTER}&q=gone-sub`, ["gone-sub"]],
    ["another cluster", `?cluster=${OTHER_CLUSTER}&subscription=calm-sub`, []],
  ])("filters by %s", async (_name, query, expected) => {
    const { status, body } = await leaders(query);
    expect(status).toBe(200);
    expect((body as unknown as LeadersBoard).subscriptions.map((g) => g.subscription)).toEqual(expected);
  });

  it.each([
    ["an empty cluster", "?cluster=", "cluster", "must not be empty"],
    ["a cluster nobody configured", "?cluster=nowhere", "cluster", "names no configured cluster"],
    ["a namespace without its tenant", "?namespace=orders", "namespace", "must be tenant/namespace"],
    ["a topic that is not a full name", "?topic=orders", "topic", "must be a full topic name"],
    ["includeGone that is not a boolean", "?includeGone=yes", "includeGone", 'must be "true" or "false"'],
    ["an unknown parameter (a typo)", "?clsuter=a", "clsuter", "is not a known parameter"],
    ["a parameter given twice", "?q=a&q=b", "q", "is given more than once"],
    ["a query too long", `?q=${"x".repeat(201)}`, "q", "at most 200 characters"],
  ])("refuses %s with a 400 that names the parameter", async (_name, query, field, message) => {
    const { status, body } = await leaders(query);
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: "invalid_request" });
    expect(body.error!.message).toContain(field);
    expect(body.error!.details!.issues[0]).toMatchObject({ field, message: expect.stringContaining(message) });
  });
});
