import http from "node:http";
import { Readable } from "node:stream";

// A minimal HTTP server that hands requests to Next route handlers (the exported POST/GET
// functions) the way Next's own server does: a web Request in, a web Response out. Used where
// a test needs real HTTP but not the rest of Next (pages, routing, build).

type RouteHandler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

export type RouteServer = { url: string; close(): Promise<void> };

function toWebRequest(req: http.IncomingMessage, origin: string): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(new URL(req.url ?? "/", origin), {
    method: req.method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    duplex: "half",
  } as RequestInit);
}

async function writeWebResponse(response: Response, res: http.ServerResponse): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, { ...headers, "content-length": String(body.length) });
  res.end(body);
}

/** Serves `{ "POST /api/v1/exclusivity-events": POST }` on 127.0.0.1 (port 0: a free one). */
export function startRouteServer(routes: Record<string, RouteHandler>, port = 0): Promise<RouteServer> {
  const server = http.createServer((req, res) => {
    const origin = `http://${req.headers.host ?? "127.0.0.1"}`;
    const path = new URL(req.url ?? "/", origin).pathname;
    const handler = routes[`${req.method} ${path}`];
    if (!handler) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"code":"not_found","message":"no such route"}}');
      return;
    }
    handler(toWebRequest(req, origin), { params: Promise.resolve({}) })
      .then((response) => writeWebResponse(response, res))
      .catch((error: unknown) => {
        console.error(`[route-server] ${req.method} ${path} failed:`, error);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
  });
  // Large batches on a busy machine: do not let Node's defaults cut slow requests short.
  server.requestTimeout = 120_000;
  server.keepAliveTimeout = 30_000;
  return new Promise((resolve) => {
    server.listen(port, "127.0.0.1", () => {
      const address = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${address.port}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
