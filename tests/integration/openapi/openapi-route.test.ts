import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GET as getHealth } from "@/app/api/health/route";
import { GET as getOpenApi } from "@/app/api/openapi.json/route";
import { GET as listDeployments, POST as createDeployment } from "@/app/api/v1/deployments/route";
import { getOpenApiDocument } from "@/lib/openapi/get-openapi-document";
import { listOperations } from "@/lib/openapi/list-operations";
import { deploymentListSchema, deploymentSchema } from "@/lib/openapi/responses/ingest-schemas";
import { healthReportSchema } from "@/lib/openapi/responses/read-schemas";
import { createTestToken, openDb, uniquePrefix } from "@/tests/integration/ingest/ingest-test-kit";

const URL_BASE = "http://127.0.0.1";
const db = openDb();
const service = uniquePrefix("openapi-svc");
let token: string;

beforeAll(async () => {
  token = await createTestToken(db, "openapi");
});
afterAll(async () => {
  await db.deployment.deleteMany({ where: { service } });
  await db.$disconnect();
});

describe("GET /api/openapi.json", () => {
  it("answers the API document as JSON", async () => {
    const response = await getOpenApi(new Request(`${URL_BASE}/api/openapi.json`), {});
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("content-encoding")).toBeNull();
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual(JSON.parse(JSON.stringify(getOpenApiDocument())));
    expect(body).toMatchObject({ openapi: "3.1.0", info: { title: "Baton" } });
  });

  it("answers it uncompressed also to a client that accepts gzip", async () => {
    const response = await getOpenApi(new Request(`${URL_BASE}/api/openapi.json`, { headers: { "accept-encoding": "gzip" } }), {});
    expect(response.status).toBe(200);
    expect(response.headers.get("content-encoding")).toBeNull();
    expect(await response.json()).toEqual(JSON.parse(JSON.stringify(getOpenApiDocument())));
  });
});

describe("the documented answers, against the real routes", () => {
  it("GET /api/health answers a documented status with the documented report", async () => {
    const response = await getHealth(new Request(`${URL_BASE}/api/health`), {});
    expect([200, 503]).toContain(response.status);
    expect(healthReportSchema.safeParse(await response.json()).error).toBeUndefined();
  });

  it("POST /api/v1/deployments: each documented example answers 201 with the documented deployment", async () => {
    const operation = listOperations(Date.now()).find((candidate) => candidate.operationId === "createDeployment")!;
    for (const [name, example] of Object.entries(operation.body!.examples)) {
      // The examples' own service and id, made unique to this run.
      const value = example.value as Record<string, unknown>;
      const body = { ...value, service, ...(value.id === undefined ? {} : { id: uniquePrefix(name) }) };
      const response = await createDeployment(
        new Request(`${URL_BASE}/api/v1/deployments`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
        {},
      );
      expect({ name, status: response.status }).toEqual({ name, status: 201 });
      expect(deploymentSchema.safeParse(await response.json()).error).toBeUndefined();
    }
    const listed = await listDeployments(new Request(`${URL_BASE}/api/v1/deployments?service=${service}`), {});
    expect(listed.status).toBe(200);
    const list = deploymentListSchema.parse(await listed.json());
    expect(list.deployments).toHaveLength(Object.keys(operation.body!.examples).length);
  });
});
