import "server-only";

import http from "node:http";

import { describeListening, type ListenPlan } from "@/lib/http/listen-address";
import { closeServers, type ListeningServers, listenOnPlan } from "@/lib/http/listen-servers";
import { getProcessMetrics } from "@/lib/metrics/process-registry";

/**
 * The worker's own /metrics (poll cycle durations and its process metrics) on the addresses of
 * `plan` (BATON_LISTEN_HOST, else this machine only while Baton is open), closed when `signal`
 * aborts. The web app's /metrics cannot report these: they happen in this process. Resolves
 * once listening.
 */
export async function serveWorkerMetrics(plan: ListenPlan, signal: AbortSignal, log: (line: string) => void): Promise<ListeningServers> {
  const registry = getProcessMetrics().registry;
  const onRequest: http.RequestListener = (req, res) => {
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
  };
  const listening = await listenOnPlan(plan, () => http.createServer(onRequest));
  signal.addEventListener("abort", () => void closeServers(listening.servers), { once: true });
  log(describeListening("metrics (GET /metrics)", plan, listening));
  return listening;
}
