import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { createDeploymentSchema, finishDeploymentSchema, listDeploymentsQuerySchema, updateDeploymentSchema } from "@/lib/deployments/deployment-schema";
import { parseWithSchema } from "@/lib/http/parse-input";

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(NOW);
});
afterEach(() => vi.useRealTimers());

describe("createDeploymentSchema", () => {
  it("fills the environment and leaves the rest optional", () => {
    expect(createDeploymentSchema.parse({ service: "orders", version: "1.4.2" })).toEqual({ service: "orders", version: "1.4.2", environment: "production" });
  });

  it("parses times, link and attributes", () => {
    const parsed = createDeploymentSchema.parse({
      id: "gh-run-991",
      service: "orders",
      version: "1.4.2",
      environment: "staging",
      startedAt: "2026-11-22T11:00:00Z",
      finishedAt: NOW - 60_000,
      link: "https://github.com/acme/orders/actions/runs/991",
      description: "Roll out 1.4.2",
      attributes: { tags: ["canary"], commit: "abc123" },
    });
    expect(parsed).toMatchObject({ startedAt: Date.UTC(2026, 10, 22, 11), finishedAt: NOW - 60_000, attributes: { tags: ["canary"], commit: "abc123" } });
  });

  it.each([
    ["service missing", { version: "1" }, "service", /is required/],
    ["version empty", { service: "s", version: "" }, "version", /must not be empty/],
    ["link not http", { service: "s", version: "1", link: "javascript:alert(1)" }, "link", /http/],
    ["startedAt not a date", { service: "s", version: "1", startedAt: "2026-02-30T00:00:00Z" }, "startedAt", /RFC 3339/],
    ["finishedAt far ahead", { service: "s", version: "1", finishedAt: NOW + 3 * 86_400_000 }, "finishedAt", /future/],
    ["attributes a string", { service: "s", version: "1", attributes: "x" }, "attributes", /JSON object/],
    ["an unknown field (Grafana's text)", { service: "s", version: "1", text: "deploy" }, "text", /not a known field/],
  ])("rejects %s, naming the field", (_label, input, field, message) => {
    let error: unknown;
    try {
      parseWithSchema(createDeploymentSchema, input, "The request body");
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ status: 400, code: "invalid_request", details: { issues: expect.arrayContaining([expect.objectContaining({ field })]) } });
    const issue = (error as { details: { issues: { field: string; message: string }[] } }).details.issues.find((i) => i.field === field);
    expect(issue?.message).toMatch(message);
  });
});

describe("updateDeploymentSchema and finishDeploymentSchema", () => {
  it("takes any field, null clears, and an empty patch is refused", () => {
    expect(updateDeploymentSchema.parse({ finishedAt: null, description: "done" })).toEqual({ finishedAt: null, description: "done" });
    expect(updateDeploymentSchema.safeParse({}).success).toBe(false);
    expect(updateDeploymentSchema.safeParse({ id: "x" }).success).toBe(false);
  });

  it("finishes now or at a given time", () => {
    expect(finishDeploymentSchema.parse({})).toEqual({});
    expect(finishDeploymentSchema.parse({ finishedAt: "2026-11-22T11:30:00Z" })).toEqual({ finishedAt: Date.UTC(2026, 10, 22, 11, 30) });
  });
});

describe("listDeploymentsQuerySchema", () => {
  it("parses filters from a query string", () => {
    const query = Object.fromEntries(new URLSearchParams("service=orders&from=2026-11-22T00:00:00Z&to=1764000000000&limit=5"));
    expect(listDeploymentsQuerySchema.parse(query)).toEqual({ service: "orders", from: Date.UTC(2026, 10, 22), to: 1_764_000_000_000, limit: 5 });
    expect(listDeploymentsQuerySchema.parse({})).toEqual({ limit: 100 });
  });

  it.each([{ limit: "0" }, { limit: "1001" }, { from: "soon" }, { colour: "red" }])("rejects %j", (query) => {
    expect(listDeploymentsQuerySchema.safeParse(query).success).toBe(false);
  });
});
