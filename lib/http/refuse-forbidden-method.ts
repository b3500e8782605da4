// Used by Baton's web server (tools/serve-web.ts, which runs without the react-server condition
// and so cannot import server-only modules), in front of Next's request handler.
import type { IncomingMessage, ServerResponse } from "node:http";

import { publicMethods } from "@/lib/auth/access-rules";
import { API_CONTENT_SECURITY_POLICY } from "@/lib/auth/content-security-policy";

/**
 * Methods the Fetch standard forbids: Next builds a `Request` for every request (for proxy.ts
 * and for route handlers), and `new Request` throws on these, which Next answers with a 500 and
 * a logged TypeError. Node's HTTP server passes only TRACE on (CONNECT is its own event, TRACK
 * a parse error), but the list is the standard's.
 */
export const FORBIDDEN_METHODS: readonly string[] = ["CONNECT", "TRACE", "TRACK"];

/** Every method some route of Baton serves (Next adds HEAD beside GET and OPTIONS to route handlers). */
export const SERVED_METHODS: readonly string[] = ["GET", "HEAD", "OPTIONS", "POST", "PATCH"];

function allowedAt(target: string | undefined): readonly string[] {
  try {
    return publicMethods(new URL(target ?? "/", "http://baton.invalid").pathname) ?? SERVED_METHODS;
  } catch {
    return SERVED_METHODS;
  }
}

/**
 * Answers a request with a forbidden method itself (405, with the methods the path serves when
 * the access rules list them, else those Baton serves anywhere), before Next sees it: true when
 * it did. Nothing is logged; such a request is a probe, not a fault.
 */
export function refuseForbiddenMethod(request: IncomingMessage, response: ServerResponse): boolean {
  const method = (request.method ?? "").toUpperCase();
  if (!FORBIDDEN_METHODS.includes(method)) return false;
  const body = JSON.stringify({ error: { code: "method_not_allowed", message: `Baton does not answer ${method}.` } });
  response.writeHead(405, {
    allow: allowedAt(request.url).join(", "),
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    "content-security-policy": API_CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
  });
  response.end(body);
  return true;
}
