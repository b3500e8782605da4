import "server-only";

import { readFileSync } from "node:fs";

import { Agent, type Dispatcher, type Response as UndiciResponse, fetch as undiciFetch } from "undici";
import type { z } from "zod";

import type { PulsarClusterConfig } from "@/lib/sources/pulsar/pulsar-config";

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

export type AdminTarget = Pick<PulsarClusterConfig, "adminUrl" | "token" | "tls" | "requestTimeoutMs">;

type RequestOptions = {
  method?: "GET" | "PUT" | "POST" | "DELETE";
  body?: unknown;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Stop reading an answer larger than this many bytes and fail with "too-large" (no limit when absent). */
  maxBytes?: number;
};

/**
 * The body as text, reading at most maxBytes: a larger answer is refused from its
 * Content-Length when the broker sends one, else as soon as the bytes read pass the limit, and
 * the connection's rest is dropped rather than buffered.
 */
async function readBodyText(response: UndiciResponse, path: string, maxBytes: number | undefined): Promise<string> {
  if (maxBytes === undefined || response.body === null) return response.text();
  const tooLarge = (bytes: string) => new PulsarAdminError("too-large", `the answer to ${path.split("?")[0]} is larger than the limit of ${maxBytes} bytes (${bytes})`);
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body.cancel();
    throw tooLarge(`${declared} bytes declared`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    // Leaving the loop by a throw cancels the stream: the rest of the answer is never read.
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
async function readReason(response: { text(): Promise<string>; headers: { get(name: string): string | null } }): Promise<string> {
  const text = await response.text().catch(() => "");
  if ((response.headers.get("content-type") ?? "").includes("json")) {
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

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return `${cause.code}${cause.message ? `: ${cause.message}` : ""}`;
  // fetch refuses some ports outright ("bad port") and says so only in the cause.
  return cause?.message ?? (error as Error).message;
}

/**
 * Sends one admin request and returns the raw JSON body (undefined for an empty body).
 * Redirects (307 to the owning broker) are followed by hand: fetch drops the Authorization
 * header on a cross-origin redirect.
 */
export async function requestAdminJson(target: AdminTarget, path: string, options: RequestOptions = {}): Promise<unknown> {
  const timeoutMs = options.timeoutMs ?? target.requestTimeoutMs;
  const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
  // Uncompressed: fetch asks for gzip by default, and the broker then compresses every answer and
  // the worker inflates it. At 50 stats requests a second that was a tenth of the worker's busy
  // time (a CPU profile at 10,000 partition-subscriptions: docs/scale.md). The price is bytes on
  // the wire: a 10-partition topic's stats are 44 KB, 2.2 MB/s at 50 requests a second.
  const headers: Record<string, string> = { accept: "application/json", "accept-encoding": "identity" };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";

  let url = new URL(path, `${target.adminUrl}/`).toString();
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let response;
    try {
      response = await undiciFetch(url, {
        method: options.method ?? "GET",
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        redirect: "manual",
        signal,
        dispatcher: dispatcherFor(target),
      });
    } catch (error) {
      if (signal.aborted && (options.signal?.aborted !== true)) {
        throw new PulsarAdminError("timeout", `no answer from ${new URL(url).host} within ${timeoutMs} ms`);
      }
      throw new PulsarAdminError("unreachable", `cannot reach ${new URL(url).host}: ${describeNetworkError(error)}`);
    }

    if ([301, 302, 303, 307, 308].includes(response.status)) {
      const location = response.headers.get("location");
      await response.body?.cancel();
      if (!location) throw new PulsarAdminError("http", `redirect ${response.status} without a Location header`, response.status);
      url = new URL(location, url).toString();
      continue;
    }
    if (!response.ok) {
      const reason = await readReason(response);
      throw new PulsarAdminError("http", `HTTP ${response.status}: ${reason}`, response.status, parseRetryAfter(response.headers.get("retry-after")));
    }
    const text = await readBodyText(response, path, options.maxBytes);
    if (text.trim() === "") return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new PulsarAdminError("invalid-response", `the broker answered ${path} with a body that is not JSON`, response.status);
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
