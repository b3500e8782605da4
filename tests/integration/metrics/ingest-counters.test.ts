import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { POST } from "@/app/api/v1/exclusivity-events/route";
import { getProcessMetrics } from "@/lib/metrics/process-registry";
import { createTestToken, eventsRequest, makeEvent, openDb, uniquePrefix } from "@/tests/integration/ingest/ingest-test-kit";

// The web process counts its ingest requests by status and their items by result.

const db = openDb();
const service = uniquePrefix("metrics-ingest");
let token: string;

async function counterValue(name: "ingestRequests" | "ingestItems", labels: Record<string, string>): Promise<number> {
  const metric = await getProcessMetrics()[name].get();
  const values = metric.values as { labels: Record<string, string | number | undefined>; value: number }[];
  return values.find((value) => Object.entries(labels).every(([key, label]) => value.labels[key] === label))?.value ?? 0;
}

beforeAll(async () => {
  token = await createTestToken(db, "metrics");
});

afterAll(async () => {
  await db.exclusivityEvent.deleteMany({ where: { service } });
  await db.violationMinute.deleteMany({ where: { service } });
  await db.$disconnect();
});

describe("ingest counters", () => {
  it("counts a 401 as a request and nothing as items", async () => {
    const before = await counterValue("ingestRequests", { route: "events", status: "401" });
    const response = await POST(eventsRequest(JSON.stringify([makeEvent(service, `${service}-x`)]), { token: null }), {});
    expect(response.status).toBe(401);
    expect(await counterValue("ingestRequests", { route: "events", status: "401" })).toBe(before + 1);
  });

  it("counts accepted, duplicate and rejected items of a 200", async () => {
    const labels = (result: string) => ({ route: "events", result });
    const before = {
      accepted: await counterValue("ingestItems", labels("accepted")),
      duplicate: await counterValue("ingestItems", labels("duplicate")),
      rejected: await counterValue("ingestItems", labels("rejected")),
    };
    const body = [
      makeEvent(service, `${service}-1`),
      makeEvent(service, `${service}-2`),
      makeEvent(service, `${service}-1`),
      makeEvent(service, `${service}-3`, { counter: -1 }),
    ];
    const response = await POST(eventsRequest(JSON.stringify(body), { token }), {});
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ accepted: 2, duplicates: 1, rejected: 1 });
    expect(await counterValue("ingestItems", labels("accepted"))).toBe(before.accepted + 2);
    expect(await counterValue("ingestItems", labels("duplicate"))).toBe(before.duplicate + 1);
    expect(await counterValue("ingestItems", labels("rejected"))).toBe(before.rejected + 1);
  });
});
