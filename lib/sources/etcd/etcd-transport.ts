import { readFileSync } from "node:fs";

import { Agent, type Dispatcher } from "undici";
import { z } from "zod";

import { createRateLimiter, type RateLimiter } from "@/lib/poller/rate-limiter";

import type { EtcdClusterConfig } from "./etcd-config";
import { describeNetworkError, EtcdSourceError } from "./etcd-error";

// The one way Baton talks to etcd: its JSON gateway (grpc-gateway, on every member's client
// port since 3.3) over HTTP/1.1. Base URL with failover across the members, etcd's auth token,
// TLS, a timeout per request, the request budget, and every failure mapped to an
// EtcdSourceError. int64 fields arrive as strings and bytes as base64.

/** How many requests run at once against the cluster (the budget caps the rate). */
const MAX_CONCURRENCY = 16;

export type EtcdCredentials = { user: string; password: string };

export type EtcdAnswer<T> = { data: T; answeredAt: string; member: string };

export type EtcdStream = { member: string; lines: AsyncIterable<unknown> };

export type EtcdTransport = {
  /** One unary call, e.g. `kv/range`, parsed with `schema`. */
  call<S extends z.ZodType>(path: string, body: unknown, schema: S, options?: { timeoutMs?: number }): Promise<EtcdAnswer<z.output<S>>>;
  /** A server stream (`watch`): the JSON objects it sends, one per line, until `signal` aborts or the member goes. */
  stream(path: string, body: unknown, signal: AbortSignal): Promise<EtcdStream>;
  /** Requests started since the last call. */
  takeRequestCount(): number;
  close(): Promise<void>;
};

const gatewayErrorSchema = z.object({ error: z.string().optional(), message: z.string().optional(), code: z.number().optional() }).passthrough();
const authenticateSchema = z.object({ token: z.string().min(1) }).passthrough();

function memberOf(url: string): string {
  return new URL(url).host;
}

function readSecretFile(setting: string, file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new EtcdSourceError("answer", setting, `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/** The password from `password` or `passwordFile` (read once, at start-up). */
export function resolveCredentials(config: Pick<EtcdClusterConfig, "name" | "user" | "password" | "passwordFile">): EtcdCredentials | null {
  if (!config.user) return null;
  const password = config.passwordFile ? readSecretFile(`${config.name}.passwordFile`, config.passwordFile).trim() : config.password!;
  return { user: config.user, password };
}

function createAgent(config: Pick<EtcdClusterConfig, "tls" | "name">): Agent {
  const tls = config.tls;
  return new Agent({
    // No cap on connections: the budget caps unary calls, and each watch stream holds one.
    connect: tls
      ? {
          ca: tls.caFile ? readSecretFile(`${config.name}.tls.caFile`, tls.caFile) : undefined,
          cert: tls.certFile ? readSecretFile(`${config.name}.tls.certFile`, tls.certFile) : undefined,
          key: tls.keyFile ? readSecretFile(`${config.name}.tls.keyFile`, tls.keyFile) : undefined,
          rejectUnauthorized: tls.rejectUnauthorized,
        }
      : undefined,
    // A watch stream stays open for hours: no body timeout. Unary calls carry their own deadline.
    bodyTimeout: 0,
  });
}

/** The gateway's error body (`{"error": "etcdserver: ...", "code": 16}`) in one line. */
function describeFailure(text: string): string {
  try {
    const parsed = gatewayErrorSchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data.message ?? parsed.data.error ?? text.slice(0, 300);
  } catch {
    // Not JSON: a proxy's page, say. Its first line is the reason.
  }
  return (text.split("\n")[0] ?? "").slice(0, 300) || "no reason given";
}

function isAuthFailure(status: number, reason: string): boolean {
  return status === 401 || /invalid auth token|user name is empty|token/i.test(reason);
}

type GatewayResponse = { status: number; ok: boolean; body: Dispatcher.ResponseData["body"] };

function toGatewayResponse(response: Dispatcher.ResponseData): GatewayResponse {
  return { status: response.statusCode, ok: response.statusCode >= 200 && response.statusCode < 300, body: response.body };
}

/** A member behind a path (a proxy's `https://host/etcd`): the gateway's paths go under it. */
function basePathOf(endpoint: string): string {
  return new URL(endpoint).pathname.replace(/\/+$/, "");
}

function timeoutError(timeoutMs: number): DOMException {
  return new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError");
}

async function* splitLines(body: AsyncIterable<Uint8Array>): AsyncIterable<unknown> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line !== "") yield JSON.parse(line) as unknown;
      newline = buffered.indexOf("\n");
    }
  }
  if (buffered.trim() !== "") yield JSON.parse(buffered) as unknown;
}

export function createEtcdTransport(
  config: Pick<EtcdClusterConfig, "name" | "endpoints" | "tls" | "requestTimeoutMs" | "requestsPerSecond">,
  credentials: EtcdCredentials | null,
  limiter: RateLimiter = createRateLimiter({ requestsPerSecond: config.requestsPerSecond, maxConcurrency: MAX_CONCURRENCY }),
): EtcdTransport {
  const agent = createAgent(config);
  /** The member that answered last: asked first next time. */
  let current = 0;
  let token: string | null = null;

  /** A finished answer: status and body. */
  type Answer = { status: number; ok: boolean; text: string; answeredAt: string };

  /**
   * One request to one member. The deadline starts when the budget lets the request go (not
   * while it waits in the queue) and covers the whole body for a unary call, only the headers
   * for a stream.
   */
  async function send<T>(
    endpoint: string,
    path: string,
    body: unknown,
    timeoutMs: number,
    outer: AbortSignal | undefined,
    take: (response: GatewayResponse) => Promise<T>,
  ): Promise<T> {
    return limiter.run(async () => {
      let isBodyKept = false;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(timeoutError(timeoutMs)), timeoutMs);
      const onAbort = () => controller.abort(outer!.reason);
      outer?.addEventListener("abort", onAbort, { once: true });
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (token) headers.authorization = token;
      try {
        // undici's request() rather than fetch(): a full read is thousands of small calls, and
        // fetch's WHATWG layers cost several times the CPU per call.
        const response = await agent.request({
          origin: new URL(endpoint).origin,
          path: `${basePathOf(endpoint)}/v3/${path}`,
          method: "POST",
          headers,
          body: JSON.stringify(body),
          signal: controller.signal,
        });
        const taken = await take(toGatewayResponse(response));
        // A stream's body is read after this returns: it stays bound to the caller's signal.
        isBodyKept = outer !== undefined && response.statusCode < 300 && !response.body.bodyUsed;
        return taken;
      } catch (error) {
        if (controller.signal.reason instanceof DOMException && controller.signal.reason.name === "TimeoutError") {
          throw new EtcdSourceError("timeout", memberOf(endpoint), `no answer within ${timeoutMs} ms`);
        }
        if (outer?.aborted) throw error;
        throw new EtcdSourceError("unreachable", memberOf(endpoint), describeNetworkError(error));
      } finally {
        clearTimeout(timer);
        if (!isBodyKept) outer?.removeEventListener("abort", onAbort);
      }
    });
  }

  const readAnswer = async (response: GatewayResponse): Promise<Answer> => ({
    status: response.status,
    ok: response.ok,
    text: await response.body.text(),
    answeredAt: new Date().toISOString(),
  });

  async function authenticate(endpoint: string, timeoutMs: number): Promise<void> {
    token = null;
    const answer = await send(endpoint, "auth/authenticate", { name: credentials!.user, password: credentials!.password }, timeoutMs, undefined, readAnswer);
    if (!answer.ok) {
      throw new EtcdSourceError(
        "answer",
        memberOf(endpoint),
        `authentication as "${credentials!.user}" failed (${describeFailure(answer.text)}): check user and password`,
        answer.status,
      );
    }
    token = authenticateSchema.parse(JSON.parse(answer.text)).token;
  }

  /**
   * Sends to one member: authenticates first when needed, and once more if the token expired
   * (etcd's simple tokens lapse after 5 minutes unused). `take` reads a 2xx response.
   */
  async function sendAuthenticated<T>(
    endpoint: string,
    path: string,
    body: unknown,
    timeoutMs: number,
    outer: AbortSignal | undefined,
    take: (response: GatewayResponse) => Promise<T>,
  ): Promise<T> {
    if (credentials && token === null) await authenticate(endpoint, timeoutMs);
    const attempt = () =>
      send(
        endpoint,
        path,
        body,
        timeoutMs,
        outer,
        async (response): Promise<{ result: T } | { failure: Answer }> =>
          response.ok ? { result: await take(response) } : { failure: await readAnswer(response) },
      );
    let outcome = await attempt();
    if ("failure" in outcome && credentials && isAuthFailure(outcome.failure.status, describeFailure(outcome.failure.text))) {
      await authenticate(endpoint, timeoutMs);
      outcome = await attempt();
    }
    if ("failure" in outcome) {
      throw new EtcdSourceError(
        "answer",
        memberOf(endpoint),
        `${path}: HTTP ${outcome.failure.status}: ${describeFailure(outcome.failure.text)}`,
        outcome.failure.status,
      );
    }
    return outcome.result;
  }

  /** Asks the members in turn, starting with the last that answered; another member is tried only when one did not answer. */
  async function withFailover<T>(attempt: (endpoint: string) => Promise<T>): Promise<T> {
    let lastError: unknown;
    for (let i = 0; i < config.endpoints.length; i++) {
      const index = (current + i) % config.endpoints.length;
      try {
        const result = await attempt(config.endpoints[index]!);
        current = index;
        return result;
      } catch (error) {
        lastError = error;
        if (!(error instanceof EtcdSourceError) || !error.isTransient) throw error;
        // A token is per cluster, but a member that restarted may not know it: authenticate again.
        token = null;
      }
    }
    throw lastError;
  }

  return {
    async call(path, body, schema, options = {}) {
      const timeoutMs = options.timeoutMs ?? config.requestTimeoutMs;
      return withFailover(async (endpoint) => {
        const answer = await sendAuthenticated(endpoint, path, body, timeoutMs, undefined, readAnswer);
        let json: unknown;
        try {
          json = JSON.parse(answer.text);
        } catch (error) {
          throw new EtcdSourceError("invalid-response", memberOf(endpoint), `${path}: the answer is not JSON (${(error as Error).message})`);
        }
        const parsed = schema.safeParse(json);
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          throw new EtcdSourceError(
            "invalid-response",
            memberOf(endpoint),
            `unexpected answer to ${path}: ${issue.path.join(".") || "(root)"} ${issue.message}`,
          );
        }
        return { data: parsed.data, answeredAt: answer.answeredAt, member: memberOf(endpoint) };
      });
    },

    async stream(path, body, signal) {
      return withFailover(async (endpoint) => {
        // The gateway answers a watch at once with `created`: the deadline covers that opening;
        // the body then lives until the caller aborts or the member goes.
        const bodyOf = async (response: GatewayResponse) => response.body as AsyncIterable<Uint8Array>;
        const opened = new AbortController();
        const onAbort = () => opened.abort(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        const bytes = await sendAuthenticated(endpoint, path, body, config.requestTimeoutMs, opened.signal, bodyOf).catch((error: unknown) => {
          signal.removeEventListener("abort", onAbort);
          throw error;
        });
        return { member: memberOf(endpoint), lines: splitLines(bytes) };
      });
    },

    takeRequestCount: () => limiter.takeRequestCount(),
    close: () => agent.close(),
  };
}
