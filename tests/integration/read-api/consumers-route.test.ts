import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GET } from "@/app/api/v1/consumers/[name]/route";
import type { ConsumerReport } from "@/lib/consumers/get-consumer";
import { answer, CLUSTER, createChange, createCluster, createResource, openDb, OTHER_CLUSTER, RUN } from "@/tests/integration/read-api/read-api-kit";

const db = openDb();
const name = `worker-${RUN}`;
const other = `other-${RUN}`;
const topic = `persistent://t${RUN}/orders/events`;
const now = Date.now();

function consumer(
  consumerName: string,
  query = "",
): Promise<{
  status: number;
  body: Record<string, unknown> & { error?: { message: string; details?: { issues: { field: string | null; message: string }[] } } };
}> {
  const request = new Request(`http://127.0.0.1/api/v1/consumers/${encodeURIComponent(consumerName)}${query}`);
  return answer(GET(request, { params: Promise.resolve({ name: consumerName }) }));
}

beforeAll(async () => {
  const clusterId = await createCluster(db, CLUSTER);
  await createCluster(db, OTHER_CLUSTER);
  const p0 = await createResource(db, clusterId, { topic, partition: 0, subscription: "billing", holder: name, consumers: [name, other] });
  await createResource(db, clusterId, { topic, partition: 1, subscription: "billing", holder: other, consumers: [name, other] });
  await createResource(db, clusterId, { topic: `${topic}-keyed`, subscription: "keyed", subscriptionType: "Key_Shared", consumers: [name] });
  await createChange(db, clusterId, p0, { kind: "HOLDER_CHANGED", from: other, to: name, at: new Date(now - 60_000) });
  await createChange(db, clusterId, p0, { kind: "HOLDER_CHANGED", from: name, to: other, at: new Date(now - 120_000) });
  await createChange(db, clusterId, p0, { kind: "HOLDER_APPEARED", from: null, to: other, at: new Date(now - 180_000) });
});

afterAll(async () => {
  await db.cluster.deleteMany({ where: { name: { in: [CLUSTER, OTHER_CLUSTER] } } });
  await db.$disconnect();
});

describe("GET /api/v1/consumers/{name}", () => {
  it("says where the consumer holds and where it stands by, holders first, and its changes newest first", async () => {
    const { status, body } = await consumer(name);
    expect(status).toBe(200);
    const report = body as unknown as ConsumerReport;
    expect(report.positions.map((p) => [p.subscription, p.partition, p.isHolder, p.holder])).toEqual([
      ["billing", 0, true, name],
      ["billing", 1, false, other],
      ["keyed", -1, false, null],
    ]);
    expect(report.positions[0]).toMatchObject({
      cluster: CLUSTER,
      topic,
      subscriptionType: "Failover",
      connectedSince: "2026-11-22T09:00:00.000Z",
      address: "/127.0.0.1:50000",
    });
    expect(report.history.map((c) => [c.fromHolder, c.toHolder])).toEqual([
      [other, name],
      [name, other],
    ]);
    expect(report.history[0]).toMatchObject({ cluster: CLUSTER, topic, subscription: "billing", partition: 0, kind: "HOLDER_CHANGED" });
    expect(report.historyTotal).toBe(2);
  });

  it("narrows to one cluster, and pages the history", async () => {
    const elsewhere = (await consumer(name, `?cluster=${OTHER_CLUSTER}`)).body as unknown as ConsumerReport;
    expect(elsewhere).toMatchObject({ positions: [], history: [], historyTotal: 0 });
    const page = (await consumer(name, "?limit=1")).body as unknown as ConsumerReport;
    expect(page.history).toHaveLength(1);
    expect(page.nextCursor).not.toBeNull();
  });

  it("answers an unknown consumer with nothing, not an error", async () => {
    const { status, body } = await consumer(`nobody-${RUN}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ positions: [], history: [], historyTotal: 0 });
  });

  it.each([
    ["a cluster nobody configured", "?cluster=nowhere", "cluster", "names no configured cluster"],
    ["a from that is no time", "?from=soon", "from", "RFC 3339"],
    ["a limit of 0", "?limit=0", "limit", "at least 1"],
    ["an unknown parameter", "?subscription=x", "subscription", "is not a known parameter"],
  ])("refuses %s with a 400 naming the parameter", async (_name, query, field, message) => {
    const { status, body } = await consumer(name, query);
    expect(status).toBe(400);
    expect(body.error!.details!.issues[0]).toMatchObject({ field, message: expect.stringContaining(message) });
  });
});
