/**
 * The one HTTP transport of the test tooling (fixtures, set-up, test support) to Pulsar's admin
 * API. Baton's own admin client lives in lib/pulsar; this one stays small on purpose, and returns
 * raw responses so that fixtures can record exactly what the broker said.
 */

export interface AdminResponse {
  status: number;
  contentType: string | null;
  text: string;
}

export interface AdminRequestOptions {
  body?: unknown;
  timeoutMs?: number;
}

export class AdminRequestError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`${method} ${path} answered HTTP ${status}: ${body.slice(0, 500)}`);
    this.name = "AdminRequestError";
  }
}

const DEFAULT_TIMEOUT_MS = 15_000;

export async function requestAdmin(
  adminUrl: string,
  method: "GET" | "PUT" | "POST" | "DELETE",
  path: string,
  options: AdminRequestOptions = {},
): Promise<AdminResponse> {
  const response = await fetch(`${adminUrl.replace(/\/+$/, "")}${path}`, {
    method,
    headers: options.body === undefined ? undefined : { "content-type": "application/json" },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    // A standalone owns every bundle, so a 307 here means a misconfigured broker: report it.
    redirect: "manual",
    signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
  });
  return { status: response.status, contentType: response.headers.get("content-type"), text: await response.text() };
}

/** A request that must succeed (2xx); anything else throws AdminRequestError. */
export async function requestAdminOk(
  adminUrl: string,
  method: "GET" | "PUT" | "POST" | "DELETE",
  path: string,
  options: AdminRequestOptions = {},
): Promise<AdminResponse> {
  const response = await requestAdmin(adminUrl, method, path, options);
  if (response.status < 200 || response.status > 299) {
    throw new AdminRequestError(method, path, response.status, response.text);
  }
  return response;
}
