import "server-only";

import http from "node:http";

import { getProcessMetrics } from "@/lib/metrics/process-registry";

/**
 * The worker's own /metrics (poll cycle durations and its process metrics) on 0.0.0.0:`port`,
 * closed when `signal` aborts. The web app's /metrics cannot report these: they happen in this
 * process. Resolves once listening.
 */
export function serveWorkerMetrics(port: number, signal: AbortSignal, log: (line: string) => void): Promise<http.Server> {
  const registry = getProcessMetrics().registry;
  const server = http.createServer((req, res) => {
    if (req.method !== "GET" || new URL(req.url ?? "/", "http://worker").pathname !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found: the worker serves GET /metrics only\n");
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { "content-type": registry.contentType, "cache-control": "no-store" }).end(text),
      (error: unknown) => {
        log(`metrics: cannot render: ${(error as Error).message}`);
        res.writeHead(500, { "content-type": "text/plain" }).end("cannot render metrics\n");
      },
    );
  });
  signal.addEventListener("abort", () => server.close(), { once: true });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, () => {
      log(`metrics on http://0.0.0.0:${(server.address() as { port: number }).port}/metrics`);
      resolve(server);
    });
  });
}
