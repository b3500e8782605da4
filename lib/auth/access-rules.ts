// The one place that says who may reach what (proxy.ts applies it to every request;
// tests/unit/auth/route-coverage.test.ts walks app/ so that a new route is classified).
// Pure and client-safe: no imports.

/**
 * - "public": anyone (load-balancer health, the API description, the sign-in flow, Next's assets).
 * - "ingest": the write API; its handlers demand an ingest-scoped bearer token themselves
 *   (lib/auth/require-bearer-token.ts), in every mode, so the proxy lets the request through.
 * - "protected": everything else, pages and read API alike: a session, a trusted proxy's user
 *   or a read-scoped token when access control is configured.
 */
export type AccessRule = "public" | "ingest" | "protected";

export type RouteKind = "page" | "api";

/**
 * Paths anyone may reach, exactly, with the methods they serve: any other method on them is
 * answered 405 (proxy.ts), whoever asks. A new route is protected unless it is added here.
 */
export const PUBLIC_ROUTES: ReadonlyArray<{ path: string; methods: readonly string[] }> = [
  { path: "/api/health", methods: ["GET", "HEAD"] },
  { path: "/api/openapi.json", methods: ["GET", "HEAD"] },
  { path: "/sign-in", methods: ["GET", "HEAD"] },
  { path: "/auth/sign-in", methods: ["GET", "HEAD"] },
  { path: "/auth/callback", methods: ["GET", "HEAD"] },
  { path: "/auth/sign-out", methods: ["POST"] },
  { path: "/favicon.ico", methods: ["GET", "HEAD"] },
];

export const PUBLIC_PATHS: readonly string[] = PUBLIC_ROUTES.map((route) => route.path);

/** Next's own build assets (scripts, styles): they hold code, never data. */
const PUBLIC_PREFIXES: readonly string[] = ["/_next/static/"];

/** The write API: method and path (`:id` is one segment). */
export const INGEST_ROUTES: ReadonlyArray<{ method: string; path: string }> = [
  { method: "POST", path: "/api/v1/exclusivity-events" },
  { method: "POST", path: "/api/v1/exclusivity-counts" },
  { method: "POST", path: "/api/v1/deployments" },
  { method: "PATCH", path: "/api/v1/deployments/:id" },
  { method: "POST", path: "/api/v1/deployments/:id/finish" },
];

function matchesPattern(pattern: string, pathname: string): boolean {
  const want = pattern.split("/");
  const got = pathname.split("/");
  return want.length === got.length && want.every((segment, index) => (segment.startsWith(":") ? got[index] !== "" : segment === got[index]));
}

/** Machine-read routes outside /api: Prometheus's default scrape path. */
const MACHINE_PATHS: readonly string[] = ["/metrics"];

/** A page (refused with a redirect to sign-in) or an API (refused with a 401 a client can read). */
export function routeKind(pathname: string): RouteKind {
  return pathname === "/api" || pathname.startsWith("/api/") || MACHINE_PATHS.includes(pathname) ? "api" : "page";
}

function withoutTrailingSlash(pathname: string): string {
  return pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
}

/** The methods a public path serves, or null for a path that is not public (its route decides). */
export function publicMethods(pathname: string): readonly string[] | null {
  const path = withoutTrailingSlash(pathname);
  return PUBLIC_ROUTES.find((route) => route.path === path)?.methods ?? null;
}

/** The rule of one request. Unknown paths are protected: closed unless listed. */
export function classifyRequest(method: string, pathname: string): AccessRule {
  const path = withoutTrailingSlash(pathname);
  if (PUBLIC_PATHS.includes(path) || PUBLIC_PREFIXES.some((prefix) => path.startsWith(prefix))) return "public";
  const upper = method.toUpperCase();
  if (INGEST_ROUTES.some((route) => route.method === upper && matchesPattern(route.path, path))) return "ingest";
  return "protected";
}

// Any origin would do: a path that keeps it keeps every origin, Baton's own included.
const PLACEHOLDER_ORIGIN = "http://baton.invalid";

/**
 * Where a page sends a signed-out visitor, and back: only paths on this site. Browsers drop tabs
 * and line breaks from URLs (`/\t/evil.example` is `//evil.example` to them) and read `\` as `/`,
 * so a value is accepted only when it holds no control character and, resolved as a browser
 * resolves it, stays on the origin it is resolved against; the resolved path is what is returned.
 */
export function safeReturnPath(value: string | null | undefined): string {
  if (!value?.startsWith("/") || /\p{Cc}/u.test(value)) return "/";
  let resolved: URL;
  try {
    resolved = new URL(value, PLACEHOLDER_ORIGIN);
  } catch {
    return "/";
  }
  if (resolved.origin !== PLACEHOLDER_ORIGIN) return "/";
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}
