import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GET as getCauses } from "@/app/api/v1/violations/causes/route";
import { GET as getKey } from "@/app/api/v1/violations/key/route";
import type { KeyDrilldown } from "@/lib/violations/drilldown-types";
import type { ViolationCauses } from "@/lib/violations/queries/get-violation-causes";
import { createLeaderChange, getJson, MINUTE, openDb, openIngestPool, uniquePrefix, writeTestEvents } from "@/tests/integration/violations/violations-test-kit";

// A frozen worker seen from the other side (the demo's SIGSTOPped JVM): its partition moves away
// while it sends nothing; when it wakes it enters keys from its receive queue while the new
// leader is inside them. Those entries are the stall, not a failover's noise. Beside it, an
// ordinary failover: the old leader sent events up to the move, and a message it had taken just
// before is processed after it: a failover overlap. Both from a real database, through the read
// API's list and the key drill-down, which must agree.

const BASE = "http://127.0.0.1/api/v1/violations";
const db = openDb();
const pool = openIngestPool();
const service = uniquePrefix("woken");
const topic = `persistent://woken/ns/${uniquePrefix("payments")}`;
const subscription = uniquePrefix("payments-sub");
const frozenKeys = [uniquePrefix("key-woken-1"), uniquePrefix("key-woken-2")];
const failoverKey = uniquePrefix("key-failover");
const NOW = Date.now();
const at = (minutesAgo: number, plusMs = 0) => NOW - minutesAgo * MINUTE + plusMs;
const onPartition = (partition: number) => ({ topic: `${topic}-partition-${partition}`, subscription, partition });
const inside = (worker: string, enteredAtMs: number) => JSON.stringify([{ worker, enteredAt: enteredAtMs }]);

beforeAll(async () => {
  // Partition 0: jvm-a froze 13 s before its partition moved to jvm-b (seen 20 minutes ago).
  await createLeaderChange(db, { topic, subscription, partition: 0, from: "jvm-a", to: "jvm-b", oldSeenAtMs: at(20, -3_000), newSeenAtMs: at(20) });
  // Partition 1: node-c closed while busy; its partition moved to node-d (seen 10 minutes ago).
  await createLeaderChange(db, { topic, subscription, partition: 1, from: "node-c", to: "node-d", oldSeenAtMs: at(10, -1_000), newSeenAtMs: at(10) });
  await writeTestEvents(pool, [
    // jvm-a's last entry before the freeze, then jvm-b taking over, then jvm-a waking into two keys jvm-b is inside.
    { service, key: uniquePrefix("key-before"), worker: "jvm-a", counter: 0, observedAtMs: at(20, -13_000), ...onPartition(0) },
    { service, key: frozenKeys[0]!, worker: "jvm-b", counter: 0, observedAtMs: at(20, 100), ...onPartition(0) },
    { service, key: frozenKeys[1]!, worker: "jvm-b", counter: 0, observedAtMs: at(20, 150), ...onPartition(0) },
    { service, key: frozenKeys[0]!, worker: "jvm-a", counter: 1, observedAtMs: at(20, 500), ...onPartition(0), othersInsideJson: inside("jvm-b", at(20, 100)) },
    { service, key: frozenKeys[1]!, worker: "jvm-a", counter: 1, observedAtMs: at(20, 520), ...onPartition(0), othersInsideJson: inside("jvm-b", at(20, 150)) },
    // node-c busy up to the move (an entry 300 ms before it), then node-d inside the key, and node-c entering it after the move.
    { service, key: uniquePrefix("key-busy"), worker: "node-c", counter: 0, observedAtMs: at(10, -300), ...onPartition(1) },
    { service, key: failoverKey, worker: "node-d", counter: 0, observedAtMs: at(10, 100), ...onPartition(1) },
    { service, key: failoverKey, worker: "node-c", counter: 1, observedAtMs: at(10, 400), ...onPartition(1), othersInsideJson: inside("node-d", at(10, 100)) },
  ]);
});

afterAll(async () => {
  await db.exclusivityEvent.deleteMany({ where: { service } });
  await db.violationMinute.deleteMany({ where: { service } });
  await db.violationHour.deleteMany({ where: { service } });
  await db.heldResource.deleteMany({ where: { topic: { startsWith: topic } } });
  await Promise.all([db.$disconnect(), pool.end()]);
});

describe("a worker that wakes up after its partition moved away", () => {
  it("GET /causes: its entries are 'worker stalled'; an old leader that was busy up to the move is a failover overlap", async () => {
    const { status, body } = await getJson(getCauses, `${BASE}/causes?range=1h&service=${service}`);
    expect(status).toBe(200);
    const answer = body as unknown as ViolationCauses;
    expect(Object.fromEntries(answer.violations.map((v) => [v.key, v.cause]))).toEqual({
      [frozenKeys[0]!]: "worker-stalled",
      [frozenKeys[1]!]: "worker-stalled",
      [failoverKey]: "failover-overlap",
    });
  });

  it("GET /key: the drill-down names the same causes, and the woken worker's move", async () => {
    for (const key of frozenKeys) {
      const drilldown = (await getJson(getKey, `${BASE}/key?key=${encodeURIComponent(key)}&range=1h`)).body as unknown as KeyDrilldown;
      expect(drilldown.explanations.map((e) => [e.cause, e.wakeAfterMove?.from, e.wakeAfterMove?.to])).toEqual([["worker-stalled", "jvm-a", "jvm-b"]]);
    }
    const failover = (await getJson(getKey, `${BASE}/key?key=${encodeURIComponent(failoverKey)}&range=1h`)).body as unknown as KeyDrilldown;
    expect(failover.explanations.map((e) => [e.cause, e.wakeAfterMove])).toEqual([["failover-overlap", null]]);
  });
});
