import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GET } from "@/app/api/v1/annotations/route";
import { annotationListSchema } from "@/lib/openapi/responses/annotation-schemas";
import {
  answer,
  CLUSTER,
  createChange,
  createCluster,
  createResource,
  openDb,
  OTHER_CLUSTER,
  removeClusters,
  RUN,
} from "@/tests/integration/read-api/read-api-kit";

// GET /api/v1/annotations against the test database: holder changes as points, deployments as
// regions, in Grafana's annotation fields; bad queries are 400s naming the parameter.

const db = openDb();
const service = `annotations-${RUN}`;
const now = Date.now();
const minutes = (n: number) => new Date(now - n * 60_000);
const get = (query: string) => answer(GET(new Request(`http://127.0.0.1/api/v1/annotations?${query}`), {}));

beforeAll(async () => {
  const clusterId = await createCluster(db, CLUSTER);
  const otherId = await createCluster(db, OTHER_CLUSTER);
  const resource = await createResource(db, clusterId, { topic: `persistent://ann-${RUN}/ns/orders`, partition: 0, subscription: "billing", holder: "w2" });
  const other = await createResource(db, otherId, { topic: `persistent://ann-${RUN}/ns/other`, subscription: "billing", holder: "x" });
  await createChange(db, clusterId, resource, { kind: "HOLDER_CHANGED", from: "w1", to: "w2", at: minutes(10) });
  await createChange(db, clusterId, resource, { kind: "CONSUMERS_CHANGED", from: "w2", to: "w2", at: minutes(5) });
  await createChange(db, clusterId, resource, { kind: "HOLDER_LOST", from: "w2", to: null, at: minutes(2), cause: "BROKER" });
  await createChange(db, clusterId, resource, { kind: "HOLDER_CHANGED", from: "w0", to: "w1", at: minutes(60 * 24 * 3) });
  await createChange(db, otherId, other, { kind: "HOLDER_APPEARED", from: null, to: "x", at: minutes(3) });
  await db.deployment.createMany({
    data: [
      { service, version: "1.0.0", startedAt: minutes(50), finishedAt: minutes(40), description: "canary first" },
      { service, version: "1.1.0", startedAt: minutes(20), finishedAt: null },
      { service, version: "0.9.0", startedAt: minutes(60 * 24 * 2), finishedAt: minutes(60 * 24 * 2 - 5) },
      { service: `${service}-other`, version: "2.0.0", startedAt: minutes(30), finishedAt: minutes(25) },
    ],
  });
});

afterAll(async () => {
  await db.deployment.deleteMany({ where: { service: { startsWith: service } } });
  await removeClusters(db, [CLUSTER, OTHER_CLUSTER]);
  await db.$disconnect();
});

describe("GET /api/v1/annotations", () => {
  it("answers one cluster's holder changes in range as points, newest first, leaving out standby changes", async () => {
    const { status, body } = await get(`kind=changes&cluster=${CLUSTER}`);
    expect(status).toBe(200);
    const annotations = annotationListSchema.parse(body);
    expect(annotations.map((a) => [a.time, a.timeEnd, a.title])).toEqual([
      [minutes(2).getTime(), minutes(2).getTime(), `${CLUSTER}: w2 → nobody`],
      [minutes(10).getTime(), minutes(10).getTime(), `${CLUSTER}: w1 → w2`],
    ]);
    expect(annotations[0]!.tags).toEqual(["baton", "holder-change", CLUSTER, "pulsar_subscription_partition", "holder_lost"]);
    expect(annotations[0]!.text).toBe(`holder lost on persistent://ann-${RUN}/ns/orders|billing|0 (broker)`);
  });

  it("answers every configured cluster's changes without a cluster, within from and to in epoch ms as Grafana sends them", async () => {
    const { body } = await get(`kind=changes&from=${minutes(4).getTime()}&to=${now + 1}`);
    const titles = annotationListSchema.parse(body).map((a) => a.title);
    expect(titles).toEqual([`${CLUSTER}: w2 → nobody`, `${OTHER_CLUSTER}: nobody → x`]);
  });

  it("limits to the newest", async () => {
    const { body } = await get(`kind=changes&cluster=${CLUSTER}&limit=1`);
    expect(annotationListSchema.parse(body).map((a) => a.time)).toEqual([minutes(2).getTime()]);
  });

  it("answers a service's deployments overlapping the range as regions, an open one running until now", async () => {
    const { status, body } = await get(`kind=deployments&service=${service}&from=${minutes(60).toISOString()}`);
    expect(status).toBe(200);
    const annotations = annotationListSchema.parse(body);
    expect(annotations.map((a) => a.title)).toEqual([`${service} 1.1.0 (in progress)`, `${service} 1.0.0`]);
    expect(annotations[0]!.time).toBe(minutes(20).getTime());
    expect(annotations[0]!.timeEnd).toBeGreaterThanOrEqual(now);
    expect(annotations[1]!).toMatchObject({
      time: minutes(50).getTime(),
      timeEnd: minutes(40).getTime(),
      tags: ["baton", "deployment", service, "production"],
    });
    expect(annotations[1]!.text).toBe(`Deployment of ${service} 1.0.0 to production\ncanary first`);
  });

  it.each([
    ["", "kind", "is required"],
    ["kind=alerts", "kind", "must be one of changes, deployments"],
    [`kind=changes&service=${service}`, "service", "applies to kind=deployments only"],
    [`kind=deployments&cluster=${CLUSTER}`, "cluster", "applies to kind=changes only"],
    ["kind=changes&cluster=nowhere", "cluster", `names no configured cluster`],
    [`kind=changes&from=${now}&to=${now - 1000}`, "from", "must be before to"],
    ["kind=changes&from=yesterday", "from", "must be an RFC 3339 date-time with a time zone, or epoch milliseconds"],
    ["kind=changes&limit=1001", "limit", "must be at most 1000"],
    ["kind=changes&kinds=changes", "kinds", "is not a known parameter"],
    ["kind=changes&kind=deployments", "kind", "is given more than once"],
  ])("refuses ?%s with a 400 naming %s", async (query, field, message) => {
    const { status, body } = await get(query);
    expect(status).toBe(400);
    expect(body.error!.code).toBe("invalid_request");
    expect(body.error!.details!.issues[0]).toMatchObject({ field });
    expect(body.error!.details!.issues[0]!.message).toContain(message);
  });
});
