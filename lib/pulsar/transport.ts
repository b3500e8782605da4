import "server-only";

import { readFileSync } from "node:fs";

import { Agent, type Dispatcher, request } from "undici";
import type { z } from "zod";

// The one way Baton talks to a Pulsar admin API: base URL, bearer token, TLS, a timeout per
// request, redirects followed by hand, and every failure mapped to a PulsarAdminError.

/** How many 307 hops to follow before giving up (endless redirect loops have been seen). */
const MAX_REDIRECTS = 5;

export type PulsarAdminErrorKind =
  /** Connection refused, DNS failure, TLS failure: nothing answered. */
  | "unreachable"
  | "timeout"
  /** The broker answered with an error status. */
  | "http"
  /** The broker answered 2xx with a body that does not match the schema. */
  | "invalid-response"
  /** The answer is larger than the byte limit the caller set: nothing of it was parsed. */
  | "too-large"
  | "too-many-redirects";

export class PulsarAdminError extends Error {
  override name = "PulsarAdminError";
  constructor(
    readonly kind: PulsarAdminErrorKind,
    message: string,
    readonly status?: number,
    /** Seconds the broker asked us to wait (429 / 503 Retry-After). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  /** True when nothing about the resource is known: the broker (or the path to it) is down. */
  get isOutage(): boolean {
    return this.kind === "unreachable" || this.kind === "timeout" || (this.status !== undefined && (this.status >= 500 || this.status === 412));
  }
}

export type AdminTarget = { adminUrl: string; token?: string; tls?: AdminTls; requestTimeoutMs: number };
/** TLS to the admin endpoint: the CA, a client certificate for mutual TLS, and whether to check the server's certificate. */
export type AdminTls = { caFile?: string; certFile?: string; keyFile?: string; rejectUnauthorized: boolean };

type RequestOptions = {
  method?: "GET" | "PUT" | "POST" | "DELETE";
  body?: unknown;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Stop reading an answer larger than this many bytes and fail with "too-large" (no limit when absent). */
  maxBytes?: number;
};

type AdminResponse = Dispatcher.ResponseData;

function headerOf(response: AdminResponse, name: string): string | null {
  const value = response.headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

/**
 * The body as text, reading at most maxBytes: a larger answer is refused from its
 * Content-Length when the broker sends one, else as soon as the bytes read pass the limit, and
 * the connection's rest is dropped rather than buffered.
 */
async function readBodyText(response: AdminResponse, path: string, maxBytes: number | undefined): Promise<string> {
  if (maxBytes === undefined) return response.body.text();
  const tooLarge = (bytes: string) =>
    new PulsarAdminError("too-large", `the answer to ${path.split("?")[0]} is larger than the limit of ${maxBytes} bytes (${bytes})`);
  const declared = Number(headerOf(response, "content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    // A dump with no room aborts the rest of the answer without an unhandled stream error.
    await response.body.dump({ limit: 0 }).catch(() => undefined);
    throw tooLarge(`${declared} bytes declared`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    total += chunk.byteLength;
    // Leaving the loop by a throw destroys the stream: the rest of the answer is never read.
    if (total > maxBytes) throw tooLarge(`over ${total} bytes read`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total).toString("utf8");
}

const dispatchers = new Map<string, Dispatcher>();

/** One connection pool per TLS setting, so keep-alive works across polls (and the consumer signal's scrapes). */
export function dispatcherFor(target: AdminTarget): Dispatcher | undefined {
  const tls = target.tls;
  if (!tls || !target.adminUrl.startsWith("https:")) return undefined;
  const key = JSON.stringify(tls);
  let dispatcher = dispatchers.get(key);
  if (!dispatcher) {
    dispatcher = new Agent({
      connect: {
        ca: tls.caFile ? readFileSync(tls.caFile) : undefined,
        cert: tls.certFile ? readFileSync(tls.certFile) : undefined,
        key: tls.keyFile ? readFileSync(tls.keyFile) : undefined,
        rejectUnauthorized: tls.rejectUnauthorized,
      },
    });
    dispatchers.set(key, dispatcher);
  }
  return dispatcher;
}

/** The broker's reason: JSON `{"reason": ...}` on 4xx, plain text (often a stack trace) on 500. */
async function readReason(response: AdminResponse): Promise<string> {
  const text = await response.body.text().catch(() => "");
  if ((headerOf(response, "content-type") ?? "").includes("json")) {
    try {
      const body = JSON.parse(text) as { reason?: unknown; message?: unknown };
      if (typeof body.reason === "string") return body.reason;
      if (typeof body.message === "string") return body.message;
    } catch {
      // Not JSON after all: fall through to the text.
    }
  }
  return (text.split("\n")[0] ?? "").slice(0, 300) || "no reason given";
}

function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

/** "ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:8080": the code first, as the board and the health link show it. */
function describeNetworkError(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  if (code) return message ? `${code}: ${message}` : code;
  return message ?? String(error);
}

/**
 * Sends one admin request and returns the raw JSON body (undefined for an empty body).
 * Redirects (307 to the owning broker) are followed by hand, keeping the Authorization header
 * on a cross-origin redirect. Sent with undici's `request`, not `fetch`: at 50 stats requests a
 * second, fetch's WHATWG streams and headers cost the worker about 150 us of CPU more a request
 * (docs/scale.md).
 */
export async function requestAdminJson(target: AdminTarget, path: string, options: RequestOptions = {}): Promise<unknown> {
  const timeoutMs = options.timeoutMs ?? target.requestTimeoutMs;
  const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
  // Uncompressed: a client that asks for gzip makes the broker compress every answer and
  // the worker inflates it. At 50 stats requests a second that was a tenth of the worker's busy
  // time (a CPU profile at 10,000 partition-subscriptions: docs/scale.md). The price is bytes on
  // the wire: a 10-partition topic's stats are 44 KB, 2.2 MB/s at 50 requests a second.
  const headers: Record<string, string> = { accept: "application/json", "accept-encoding": "identity" };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";

  let url = new URL(path, `${target.adminUrl}/`).toString();
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let response: AdminResponse;
    try {
      response = await request(url, {
        method: options.method ?? "GET",
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal,
        dispatcher: dispatcherFor(target),
      });
    } catch (error) {
      if (signal.aborted && options.signal?.aborted !== true) {
        throw new PulsarAdminError("timeout", `no answer from ${new URL(url).host} within ${timeoutMs} ms`);
      }
      throw new PulsarAdminError("unreachable", `cannot reach ${new URL(url).host}: ${describeNetworkError(error)}`);
    }

    const status = response.statusCode;
    if ([301, 302, 303, 307, 308].includes(status)) {
      const location = headerOf(response, "location");
      await response.body.dump();
      if (!location) throw new PulsarAdminError("http", `redirect ${status} without a Location header`, status);
      url = new URL(location, url).toString();
      continue;
    }
    if (status < 200 || status > 299) {
      const reason = await readReason(response);
      throw new PulsarAdminError("http", `HTTP ${status}: ${reason}`, status, parseRetryAfter(headerOf(response, "retry-after")));
    }
    let text: string;
    try {
      text = await readBodyText(response, path, options.maxBytes);
    } catch (error) {
      if (error instanceof PulsarAdminError) throw error;
      if (signal.aborted && options.signal?.aborted !== true)
        throw new PulsarAdminError("timeout", `the answer to ${path.split("?")[0]} took longer than ${timeoutMs} ms`);
      throw new PulsarAdminError("unreachable", `the answer to ${path.split("?")[0]} was cut: ${describeNetworkError(error)}`);
    }
    if (text.trim() === "") return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new PulsarAdminError("invalid-response", `the broker answered ${path} with a body that is not JSON`, status);
    }
  }
  throw new PulsarAdminError("too-many-redirects", `more than ${MAX_REDIRECTS} redirects for ${path}`);
}

/** Sends one admin request and parses the answer with `schema`. */
export async function requestAdmin<S extends z.ZodType>(target: AdminTarget, path: string, schema: S, options: RequestOptions = {}): Promise<z.output<S>> {
  const body = await requestAdminJson(target, path, options);
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new PulsarAdminError("invalid-response", `unexpected answer to ${path}: ${issue.path.join(".") || "(root)"} ${issue.message}`);
  }
  return parsed.data;
}
