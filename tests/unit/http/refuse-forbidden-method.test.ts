import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { refuseForbiddenMethod, SERVED_METHODS } from "@/lib/http/refuse-forbidden-method";

// A real Node HTTP server with the refusal in front of a handler that stands for Next: what a
// forbidden method gets, and that nothing else is touched.

let server: Server;
let port: number;
const reachedNext: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    if (refuseForbiddenMethod(request, response)) return;
    reachedNext.push(`${request.method} ${request.url}`);
    response.end("next");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function send(method: string, path: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: "127.0.0.1", port, method, path }, (response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

describe("refuseForbiddenMethod", () => {
  it.each([
    ["/api/v1/leaders", SERVED_METHODS.join(", ")],
    ["/", SERVED_METHODS.join(", ")],
    ["/api/health", "GET, HEAD"],
    ["/auth/sign-out?x=1", "POST"],
  ])("answers TRACE %s with a 405 that names the methods served there", async (path, allow) => {
    const answer = await send("TRACE", path);
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe(allow);
    expect(JSON.parse(answer.body)).toEqual({ error: { code: "method_not_allowed", message: "Baton does not answer TRACE." } });
    expect(answer.headers["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(answer.headers["x-content-type-options"]).toBe("nosniff");
    expect(answer.headers["cache-control"]).toBe("no-store");
  });

  it("passes every other method on to Next untouched", async () => {
    reachedNext.length = 0;
    for (const method of ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND"]) expect((await send(method, "/api/health")).body).toBe("next");
    expect(reachedNext).toEqual(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND"].map((method) => `${method} /api/health`));
    expect((await send("TRACE", "/api/health")).status).toBe(405);
    expect(reachedNext).toHaveLength(7);
  });
});
