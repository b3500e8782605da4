import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";

import { PulsarAdminError, requestAdmin, requestAdminJson } from "@/lib/pulsar/transport";
import { startHttpServer, type TestServer } from "@/tests/support/http-server";

// HTTP semantics of the admin transport (redirects, auth, error bodies). What the real broker
// answers is tested against the broker itself in tests/integration/pulsar.
const servers: TestServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

async function serve(handler: Parameters<typeof startHttpServer>[0]): Promise<string> {
  const server = await startHttpServer(handler);
  servers.push(server);
  return server.url;
}

const target = (adminUrl: string, token?: string) => ({ adminUrl, token, requestTimeoutMs: 2_000 });

async function caught(promise: Promise<unknown>): Promise<PulsarAdminError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PulsarAdminError);
  return error as PulsarAdminError;
}

describe("admin transport", () => {
  it("follows a 307 to another origin and keeps the bearer token", async () => {
    const owner = await serve((req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ auth: req.headers.authorization ?? null, url: req.url }));
    });
    const receiver = await serve((req, res) => {
      res.writeHead(307, { location: `${owner}${req.url}&authoritative=true` });
      res.end();
    });
    const body = await requestAdmin(target(receiver, "s3cret"), "admin/v2/persistent/t/ns/x/stats?a=1", z.object({ auth: z.string(), url: z.string() }));
    expect(body).toEqual({ auth: "Bearer s3cret", url: "/admin/v2/persistent/t/ns/x/stats?a=1&authoritative=true" });
  });

  it("asks for the answer uncompressed", async () => {
    const adminUrl = await serve((req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ acceptEncoding: req.headers["accept-encoding"] ?? null }));
    });
    expect(await requestAdminJson(target(adminUrl), "admin/v2/clusters")).toEqual({ acceptEncoding: "identity" });
  });

  it("stops after the hop limit on a redirect loop", async () => {
    let hits = 0;
    const loop: string = await serve((req, res) => {
      hits++;
      res.writeHead(307, { location: req.url ?? "/" });
      res.end();
    });
    const error = await caught(requestAdminJson(target(loop), "admin/v2/clusters"));
    expect(error.kind).toBe("too-many-redirects");
    expect(hits).toBe(6);
  });

  it.each([
    [404, "application/json", JSON.stringify({ reason: "Topic persistent://t/ns/x not found" }), "HTTP 404: Topic persistent://t/ns/x not found", false],
    [412, "application/json", JSON.stringify({ reason: "Broker is shutting down" }), "HTTP 412: Broker is shutting down", true],
    [500, "text/plain", "java.lang.NullPointerException\n\tat org.apache...", "HTTP 500: java.lang.NullPointerException", true],
    [401, "application/json", JSON.stringify({ reason: "Authentication required" }), "HTTP 401: Authentication required", false],
  ])("maps HTTP %i to its reason", async (status, type, body, message, isOutage) => {
    const url = await serve((_req, res) => {
      res.writeHead(status, { "content-type": type });
      res.end(body);
    });
    const error = await caught(requestAdminJson(target(url), "admin/v2/x"));
    expect(error).toMatchObject({ kind: "http", status, message });
    expect(error.isOutage).toBe(isOutage);
  });

  it("surfaces 429 with the Retry-After the broker asked for", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(429, { "retry-after": "7", "content-type": "application/json" });
      res.end(JSON.stringify({ reason: "Too many requests" }));
    });
    const error = await caught(requestAdminJson(target(url), "admin/v2/x"));
    expect(error).toMatchObject({ status: 429, retryAfterSeconds: 7 });
  });

  it("reports a refused connection as unreachable and a silent server as a timeout", async () => {
    const closed = await startHttpServer(() => undefined);
    await closed.close();
    expect((await caught(requestAdminJson(target(closed.url), "admin/v2/x"))).kind).toBe("unreachable");

    const silent = await serve(() => undefined);
    const error = await caught(requestAdminJson({ adminUrl: silent, requestTimeoutMs: 200 }, "admin/v2/x"));
    expect(error.kind).toBe("timeout");
    expect(error.isOutage).toBe(true);
  });

  it("reports an answer cut in the middle as unreachable, not as a body that is not JSON", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": 1000 });
      res.write('{"partitions": {');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    for (const maxBytes of [undefined, 10_000]) {
      const error = await caught(requestAdminJson(target(url), "admin/v2/persistent/t/ns/x/stats?a=1", { maxBytes }));
      expect(error.kind).toBe("unreachable");
      expect(error.message).toMatch(/^the answer to admin\/v2\/persistent\/t\/ns\/x\/stats was cut: /);
    }
  });

  it("rejects a 200 whose body does not match the schema, naming the field", async () => {
    const url = await serve((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ partitions: "four" }));
    });
    const error = await caught(requestAdmin(target(url), "admin/v2/p", z.object({ partitions: z.number() })));
    expect(error.kind).toBe("invalid-response");
    expect(error.message).toContain("partitions");
  });
});

describe("admin transport, what it names", () => {
  it("tries a port that fetch would refuse (9) like any other, and names the network error", async () => {
    const error = await caught(requestAdminJson(target("http://127.0.0.1:9"), "admin/v2/x"));
    expect(error.kind).toBe("unreachable");
    expect(error.message).toBe("cannot reach 127.0.0.1:9: ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9");
  });

  describe("an answer larger than maxBytes", () => {
    const body = JSON.stringify({ partitions: Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`p${i}`, { msgRateOut: i }])) });

    it("is refused from its Content-Length, naming the path (without its query) and the limit", async () => {
      const url = await serve((_req, res) => {
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        res.end(body);
      });
      const error = await caught(requestAdminJson(target(url), "admin/v2/persistent/t/ns/big/partitioned-stats?perPartition=true", { maxBytes: 10_000 }));
      expect(error.kind).toBe("too-large");
      expect(error.message).toBe(
        `the answer to admin/v2/persistent/t/ns/big/partitioned-stats is larger than the limit of 10000 bytes (${Buffer.byteLength(body)} bytes declared)`,
      );
      expect(error.isOutage).toBe(false);
    });

    it("is cut off once the bytes read pass the limit when it comes chunked", async () => {
      let written = 0;
      const url = await serve((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        // 100 chunks of 4 KiB, the way a broker streams a large answer.
        const chunk = "x".repeat(4096);
        const writeNext = () => {
          while (written < 100) {
            written++;
            if (!res.write(chunk)) return void res.once("drain", writeNext);
          }
          res.end();
        };
        res.on("error", () => undefined);
        writeNext();
      });
      const error = await caught(requestAdminJson(target(url), "admin/v2/persistent/t/ns/big/stats", { maxBytes: 10_000 }));
      expect(error.kind).toBe("too-large");
      expect(error.message).toMatch(/^the answer to admin\/v2\/persistent\/t\/ns\/big\/stats is larger than the limit of 10000 bytes \(over \d+ bytes read\)$/);
    });

    it("is read whole when it fits", async () => {
      const url = await serve((_req, res) => {
        res.setHeader("content-type", "application/json");
        res.end(body);
      });
      expect(await requestAdminJson(target(url), "admin/v2/x", { maxBytes: Buffer.byteLength(body) })).toEqual(JSON.parse(body));
    });
  });
});
