import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import { classifyRequest, INGEST_ROUTES, PUBLIC_PATHS, PUBLIC_ROUTES, publicMethods, routeKind, safeReturnPath } from "@/lib/auth/access-rules";
import { FORBIDDEN_METHODS, SERVED_METHODS } from "@/lib/http/refuse-forbidden-method";
import { concretePath, listAppRoutes, servedMethods } from "@/tests/support/app-routes";

// Walks app/ as Next does (route groups vanish, [param] is one segment) and checks each page and
// each route handler's methods against the access rules: a route added later is protected
// unless someone lists it, and a listed route that no longer exists fails here.

const routes = listAppRoutes();

/** An optional outer wrapper of the exported handler, e.g. the ingest metrics' countIngest("events", …), on one line or over several. */
const WRAPPER = String.raw`(?:\w+\(\s*"[^"]*",\s*)?`;

/** What may be reached without credentials, by method and path; anything else must be protected or ingest. */
const EXPECTED_PUBLIC = new Set(["GET /api/health", "GET /api/openapi.json", "GET /sign-in", "GET /auth/sign-in", "GET /auth/callback", "POST /auth/sign-out"]);

describe("the access rules cover every route under app/", () => {
  it("finds the pages and the API (the walk itself works)", () => {
    expect(routes.filter((route) => route.kind === "page").map((route) => route.path)).toEqual(
      expect.arrayContaining(["/", "/violations", "/consumers/:name"]),
    );
    expect(routes.find((route) => route.path === "/api/v1/leaders")?.methods).toEqual(["GET"]);
    expect(routes.every((route) => route.methods.length > 0)).toBe(true);
  });

  it("protects every page and every method of every route handler, except the listed public and ingest ones", () => {
    const unexpected: string[] = [];
    for (const route of routes) {
      // Route handlers outside /api are the sign-in flow's browser redirects and /metrics (refused with a 401, as an API).
      if (route.kind === "api" && routeKind(route.path) !== "api") expect(route.path).toMatch(/^\/auth\/(sign-in|callback|sign-out)$/);
      for (const method of route.methods) {
        const key = `${method} ${route.path}`;
        const rule = classifyRequest(method, concretePath(route.path));
        if (rule === "public" && !EXPECTED_PUBLIC.has(key)) unexpected.push(`${key} is public`);
        if (rule === "protected" && EXPECTED_PUBLIC.has(key)) unexpected.push(`${key} is protected`);
        const handlerSource = readFileSync(route.file, "utf8");
        const checksToken = new RegExp(`export const ${method} = ${WRAPPER}withErrorHandling\\(async \\([^)]*\\)[^{]*\\{\\s*await requireBearerToken\\(`).test(
          handlerSource,
        );
        // A write route with its own token check, left out of INGEST_ROUTES, would demand a session too.
        if (rule === "protected" && checksToken) unexpected.push(`${key} checks an ingest token: list it in INGEST_ROUTES`);
        if (rule === "ingest") {
          // An ingest route is let through by the proxy: its handler must demand the token.
          const handler = new RegExp(
            `export const ${method} = ${WRAPPER}withErrorHandling\\(async \\([^)]*\\)[^{]*\\{\\s*await requireBearerToken\\(request\\);`,
          );
          if (!handler.test(handlerSource)) unexpected.push(`${key} is an ingest route whose handler does not start with requireBearerToken(request)`);
        }
      }
    }
    expect(unexpected).toEqual([]);
  });

  it("lists no public path or ingest route that does not exist", () => {
    const existing = new Set(routes.flatMap((route) => route.methods.map((method) => `${method} ${route.path}`)));
    const paths = new Set(routes.map((route) => route.path));
    expect(PUBLIC_PATHS.filter((listed) => listed !== "/favicon.ico" && !paths.has(listed))).toEqual([]);
    expect(INGEST_ROUTES.filter((route) => !existing.has(`${route.method} ${route.path}`))).toEqual([]);
  });

  it("protects paths no one has written yet, and read methods of the ingest paths", () => {
    expect(classifyRequest("GET", "/api/v1/some-future-resource")).toBe("protected");
    expect(classifyRequest("GET", "/some-future-page")).toBe("protected");
    expect(classifyRequest("GET", "/metrics")).toBe("protected");
    expect(routeKind("/metrics")).toBe("api");
    expect(routeKind("/metrics-dashboard")).toBe("page");
    expect(classifyRequest("GET", "/api/v1/deployments")).toBe("protected");
    expect(classifyRequest("GET", "/api/v1/deployments/42")).toBe("protected");
    expect(classifyRequest("POST", "/api/v1/deployments/42")).toBe("protected");
    expect(classifyRequest("PATCH", "/api/v1/deployments/42")).toBe("ingest");
    expect(classifyRequest("POST", "/api/v1/deployments/42/finish/")).toBe("ingest");
    expect(classifyRequest("GET", "/api/healthz")).toBe("protected");
    expect(classifyRequest("GET", "/api/health/../v1/leaders")).toBe("protected");
    expect(classifyRequest("GET", "/_next/static/chunks/app.js")).toBe("public");
    expect(classifyRequest("GET", "/_next/data/x.json")).toBe("protected");
    expect(classifyRequest("GET", "/_next/image")).toBe("protected");
  });

  it("lists each public route with exactly the methods it serves, so that every other method is refused with a 405", () => {
    const listed = PUBLIC_ROUTES.filter((route) => route.path !== "/favicon.ico").map((route) => ({ path: route.path, methods: [...route.methods].sort() }));
    // Next's automatic OPTIONS is not among them: Baton answers no CORS preflight.
    const walked = PUBLIC_ROUTES.filter((route) => route.path !== "/favicon.ico").map((route) => ({
      path: route.path,
      methods: servedMethods(routes.find((found) => found.path === route.path)!)
        .filter((method) => method !== "OPTIONS")
        .sort(),
    }));
    expect(listed).toEqual(walked);
    expect(publicMethods("/api/health")).toEqual(["GET", "HEAD"]);
    expect(publicMethods("/api/health/")).toEqual(["GET", "HEAD"]);
    expect(publicMethods("/api/v1/leaders")).toBeNull();
  });

  it("answers a forbidden method (TRACE) itself with every method Baton serves, none of which is forbidden", () => {
    const walked = new Set(routes.flatMap((route) => servedMethods(route)));
    expect([...SERVED_METHODS].sort()).toEqual([...walked].sort());
    expect(routes.flatMap((route) => route.methods.filter((method) => FORBIDDEN_METHODS.includes(method)).map((method) => `${method} ${route.path}`))).toEqual(
      [],
    );
  });

  it("sends a signed-out visitor back to every page, as it asked", () => {
    for (const route of routes.filter((found) => found.kind === "page")) {
      const page = `${concretePath(route.path)}?range=1h`;
      expect(safeReturnPath(page)).toBe(page);
    }
  });
});
