import { type NextRequest, NextResponse } from "next/server";

import { classifyRequest, publicMethods, routeKind } from "@/lib/auth/access-rules";
import { authenticateRequest } from "@/lib/auth/authenticate-request";
import { API_CONTENT_SECURITY_POLICY, pageContentSecurityPolicy } from "@/lib/auth/content-security-policy";
import { VIEWER_HEADER } from "@/lib/auth/viewer-header";
import { getConfig } from "@/lib/config";
import { checkHealth } from "@/lib/health/check-health";
import { getDb } from "@/lib/db/client";

// Every request passes here (Next 16's request interception, formerly middleware.ts): the one
// place that applies lib/auth/access-rules.ts, and that sets the Content-Security-Policy of
// every answer: the pages' with a nonce, the API's (and its own JSON answers') fixed.

function apiError(status: number, code: string, message: string, headers: Record<string, string> = {}): NextResponse {
  return NextResponse.json(
    { error: { code, message } },
    { status, headers: { "cache-control": "no-store", "content-security-policy": API_CONTENT_SECURITY_POLICY, ...headers } },
  );
}

function refuse(request: NextRequest): NextResponse {
  const { pathname, search } = request.nextUrl;
  if (routeKind(pathname) === "api") {
    return apiError(
      401,
      "unauthenticated",
      "Sign in, or send `Authorization: Bearer <token>` with a read-scoped token (npm run token:create -- --name <name> --scope read).",
      {
        "WWW-Authenticate": 'Bearer realm="baton"',
      },
    );
  }
  const signIn = new URL("/sign-in", request.url);
  signIn.searchParams.set("returnTo", `${pathname}${search}`);
  return NextResponse.redirect(signIn, 307);
}

/** A load balancer's view of /api/health: up or down, nothing about the clusters. */
async function minimalHealth(): Promise<NextResponse> {
  const report = await checkHealth(getConfig(), getDb());
  return NextResponse.json(
    { status: report.status },
    { status: report.status === "down" ? 503 : 200, headers: { "cache-control": "no-store", "content-security-policy": API_CONTENT_SECURITY_POLICY } },
  );
}

export async function proxy(request: NextRequest): Promise<NextResponse> {
  const access = getConfig().access;
  const { pathname } = request.nextUrl;
  // A public path answers its own methods only, in every mode: nothing else reaches its handler.
  const served = publicMethods(pathname);
  if (served && !served.includes(request.method.toUpperCase())) {
    return apiError(405, "method_not_allowed", `This path answers ${served.join(" and ")} only.`, { allow: served.join(", ") });
  }
  const rule = classifyRequest(request.method, pathname);
  const requestHeaders = new Headers(request.headers);
  // Only this proxy says who the viewer is.
  requestHeaders.delete(VIEWER_HEADER);

  const isOpen = access.method.mode === "open";
  const needsViewer = !isOpen && (rule === "protected" || pathname === "/api/health" || pathname === "/sign-in");
  if (needsViewer) {
    let viewer: Awaited<ReturnType<typeof authenticateRequest>>;
    try {
      viewer = await authenticateRequest(request.headers, access);
    } catch (error) {
      console.error("[baton] checking a request's credentials failed:", error);
      return apiError(503, "database_unavailable", "Baton cannot check credentials right now: its database is unavailable.");
    }
    if (!viewer && rule === "protected") return refuse(request);
    if (!viewer && pathname === "/api/health") return minimalHealth();
    if (viewer) requestHeaders.set(VIEWER_HEADER, encodeURIComponent(viewer.email ?? viewer.name ?? viewer.subject));
  }

  if (routeKind(pathname) === "api") {
    const response = NextResponse.next({ request: { headers: requestHeaders } });
    response.headers.set("content-security-policy", API_CONTENT_SECURITY_POLICY);
    return response;
  }
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  // NODE_ENV is Next's own (inlined at build time), not a Baton setting: `next dev` needs eval.
  const policy = pageContentSecurityPolicy(nonce, process.env.NODE_ENV === "development");
  requestHeaders.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  // Everything but Next's static build assets (they hold code, never data); the image
  // optimizer included (it could fetch a protected path for a signed-out visitor).
  matcher: ["/((?!_next/static/|favicon.ico).*)"],
};
