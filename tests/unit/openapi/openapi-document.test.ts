import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";

import { classifyRequest } from "@/lib/auth/access-rules";
import { buildOpenApiDocument } from "@/lib/openapi/build-openapi-document";

const API_DIR = join(process.cwd(), "app", "api");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const EXPORTED_METHOD = new RegExp(`^export (?:const|async function|function) (${METHODS.join("|")})\\b`, "gm");

type RouteOnDisk = { path: string; method: string; source: string };

function findRouteFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return findRouteFiles(path);
    return entry.name === "route.ts" ? [path] : [];
  });
}

/** `app/api/v1/deployments/[id]/finish/route.ts` -> `/api/v1/deployments/{id}/finish`. */
function toUrlPath(file: string): string {
  const segments = relative(API_DIR, file).split(sep).slice(0, -1);
  return `/api/${segments.map((segment) => segment.replace(/^\[(.+)\]$/, "{$1}")).join("/")}`.replace(/\/$/, "");
}

/** Every exported HTTP method of every route.ts under app/api, with the source of its handler. */
function readRoutesOnDisk(): RouteOnDisk[] {
  return findRouteFiles(API_DIR).flatMap((file) => {
    const text = readFileSync(file, "utf8");
    const starts = [...text.matchAll(EXPORTED_METHOD)];
    return starts.map((match, i) => ({
      path: toUrlPath(file),
      method: match[1]!.toLowerCase(),
      source: text.slice(match.index, starts[i + 1]?.index ?? text.length),
    }));
  });
}

type OperationObject = { security?: unknown[]; parameters?: { name: string; in: string }[]; responses: Record<string, unknown> };

const document = buildOpenApiDocument(Date.now());
const documented = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({ path, method, operation: operation as OperationObject })),
);
const routes = readRoutesOnDisk();

describe("the API document against app/api", () => {
  it("finds the routes on disk", () => {
    expect(routes.length).toBeGreaterThanOrEqual(17);
    expect(routes).toContainEqual(expect.objectContaining({ path: "/api/v1/deployments/{id}/finish", method: "post" }));
    expect(routes).toContainEqual(expect.objectContaining({ path: "/api/health", method: "get" }));
  });

  it("documents exactly the paths and methods the routes export", () => {
    const onDisk = routes.map((route) => `${route.method.toUpperCase()} ${route.path}`).sort();
    const inDocument = documented.map((entry) => `${entry.method.toUpperCase()} ${entry.path}`).sort();
    expect(inDocument).toEqual(onDisk);
  });

  it("asks for the bearer token exactly where a handler checks it, a read token or session where the access rules guard a read, and documents their 401", () => {
    const readSecurity = [{ bearerToken: [] }, { sessionCookie: [] }, {}];
    for (const route of routes) {
      const operation = document.paths[route.path]![route.method] as OperationObject;
      const isChecked = route.source.includes("requireBearerToken(");
      const isPublic = classifyRequest(route.method, route.path) === "public";
      expect({ route: `${route.method} ${route.path}`, security: operation.security ?? [] }).toEqual({
        route: `${route.method} ${route.path}`,
        security: isChecked ? [{ bearerToken: [] }] : isPublic ? [] : readSecurity,
      });
      expect({ route: `${route.method} ${route.path}`, has401: Object.hasOwn(operation.responses, "401") }).toEqual({
        route: `${route.method} ${route.path}`,
        has401: !isPublic,
      });
    }
  });

  it("names a path parameter for every {segment} of a path, and none besides", () => {
    for (const { path, operation } of documented) {
      const inTemplate = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
      const declared = (operation.parameters ?? [])
        .filter((parameter) => parameter.in === "path")
        .map((parameter) => parameter.name)
        .sort();
      expect({ path, declared }).toEqual({ path, declared: inTemplate });
    }
  });
});

describe("the API document itself", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("would be refused by the validator if an operation were malformed", async () => {
    const broken = structuredClone(document);
    broken.paths["/api/health"]!.get!.parameters = [{ name: "verbose" }];
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it("refers only to schemas it defines", () => {
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"([^"]+)"/g)].map((match) => match[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(Object.keys(document.components.schemas)).toContain(ref.slice("#/components/schemas/".length));
    }
  });

  it("answers every operation's errors in the one error shape", () => {
    for (const { operation } of documented) {
      const errorStatuses = Object.keys(operation.responses).filter((status) => Number(status) >= 400 && status !== "503");
      expect(errorStatuses).toContain("500");
      for (const status of errorStatuses) {
        expect(operation.responses[status]).toMatchObject({ content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } });
      }
    }
  });

  it("states what transforms hide: timestamps take a date-time or epoch milliseconds", () => {
    const observedAt = (document.components.schemas.CounterEvent!.properties as Record<string, { anyOf: unknown[] }>).observedAt;
    expect(observedAt?.anyOf).toEqual([
      { type: "string", format: "date-time" },
      { type: "integer", minimum: Date.UTC(2000, 0, 1) },
    ]);
    const startedAt = (document.components.schemas.DeploymentCreate!.properties as Record<string, { anyOf: unknown[] }>).startedAt;
    expect(startedAt?.anyOf).toHaveLength(2);
  });

  it("refuses unknown fields in what clients send, and lets answers gain fields", () => {
    const { CounterEvent, DeploymentCreate, Deployment, LeadersBoard } = document.components.schemas;
    expect(CounterEvent).toMatchObject({ additionalProperties: false, description: expect.stringContaining("counter") });
    expect(DeploymentCreate).toMatchObject({ additionalProperties: false });
    expect(JSON.stringify({ Deployment, LeadersBoard })).not.toContain('"additionalProperties":false');
  });
});
