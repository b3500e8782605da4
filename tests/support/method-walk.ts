import type { APIRequestContext } from "@playwright/test";

import { publicMethods } from "@/lib/auth/access-rules";
import { API_CONTENT_SECURITY_POLICY } from "@/lib/auth/content-security-policy";
import { SERVED_METHODS } from "@/lib/http/refuse-forbidden-method";
import { concretePath, listAppRoutes } from "@/tests/support/app-routes";

// Walks app/ against a running Baton with methods no route should serve: TRACE everywhere (Next
// would answer it with a 500 and a logged TypeError), and on each public path every method it
// does not list (a public path is reached without credentials, so nothing else may get through).
// Returns what was wrong, one line each; an empty list is a pass.

const PROBED_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND"];

/** Paths no route serves: a refusal must not depend on a route existing. */
const UNKNOWN_PATHS = ["/no-such-page", "/api/v1/no-such-resource"];

async function checkRefusal(request: APIRequestContext, url: string, method: string, allow: string): Promise<string | null> {
  const response = await request.fetch(url, { method, maxRedirects: 0 });
  const headers = response.headers();
  const body = method === "HEAD" ? "" : await response.text();
  const problems = [
    response.status() === 405 ? null : `status ${response.status()}`,
    headers.allow === allow ? null : `Allow ${JSON.stringify(headers.allow)}`,
    headers["content-security-policy"] === API_CONTENT_SECURITY_POLICY ? null : `CSP ${JSON.stringify(headers["content-security-policy"])}`,
    method === "HEAD" || body.includes('"method_not_allowed"') ? null : `body ${body.slice(0, 80)}`,
  ].filter((problem) => problem !== null);
  return problems.length === 0 ? null : `${method} ${url.replace(/^https?:\/\/[^/]+/, "")}: ${problems.join(", ")}`;
}

export async function walkRefusedMethods(request: APIRequestContext, baseUrl: string): Promise<string[]> {
  const probes: Array<{ path: string; method: string; allow: readonly string[] }> = [];
  for (const path of [...listAppRoutes().map((route) => concretePath(route.path)), ...UNKNOWN_PATHS]) {
    const served = publicMethods(path);
    probes.push({ path, method: "TRACE", allow: served ?? SERVED_METHODS });
    if (served) for (const method of PROBED_METHODS.filter((probed) => !served.includes(probed))) probes.push({ path, method, allow: served });
  }
  const problems: string[] = [];
  for (const { path, method, allow } of probes) {
    const problem = await checkRefusal(request, `${baseUrl}${path}`, method, allow.join(", "));
    if (problem) problems.push(problem);
  }
  return problems;
}
