// The listening half of Baton's web server (tools/serve-web.ts): one Node HTTP server per
// address the listen plan names (lib/http/listen-address.ts), in front of a request handler,
// Next's there, a test's in tests/integration/launcher/listen-address.test.ts. Runs without the
// react-server condition: no server-only imports.
import { createServer, type RequestListener } from "node:http";

import { PEER_ADDRESS_HEADER } from "@/lib/auth/peer-address-mark";
import { describeListening, type ListenSettings, planListen } from "@/lib/http/listen-address";
import { closeServers, type ListeningServers, listenOnPlan } from "@/lib/http/listen-servers";
import { refuseForbiddenMethod } from "@/lib/http/refuse-forbidden-method";

/** How long requests under way may take to finish once the server is asked to stop. */
const CLOSE_GRACE_MS = 5_000;

export type WebServer = ListeningServers & {
  /** Requests under way get CLOSE_GRACE_MS to finish; idle connections close at once. Resolves once every server closed. */
  stop(): Promise<void>;
};

/** Listens where `settings` say, logs the start-up line (where, and how to change it), resolves once listening. */
export async function startWebServer(settings: ListenSettings, handle: RequestListener, log: (line: string) => void): Promise<WebServer> {
  const plan = planListen(settings);
  let isStopping = false;
  const onRequest: RequestListener = (request, response) => {
    // Stopping: this answer is the connection's last, or a tab refreshing every few seconds
    // would keep its keep-alive connection busy, and the server open, for as long as it stays open.
    if (isStopping) response.setHeader("connection", "close");
    // Next would answer a TRACE with a 500 and a logged TypeError.
    if (refuseForbiddenMethod(request, response)) return;
    // Replaces any value the client sent: this header is the socket's word, never the client's.
    request.headers[PEER_ADDRESS_HEADER] = request.socket.remoteAddress ?? "";
    handle(request, response);
  };
  const listening = await listenOnPlan(plan, () => createServer(onRequest));
  log(describeListening("web server", plan, listening));
  let stopped: Promise<void> | undefined;
  const stop = () => {
    if (stopped) return stopped;
    isStopping = true;
    stopped = closeServers(listening.servers);
    for (const server of listening.servers) server.closeIdleConnections();
    const timer = setTimeout(() => {
      for (const server of listening.servers) server.closeAllConnections();
    }, CLOSE_GRACE_MS);
    timer.unref();
    void stopped.then(() => clearTimeout(timer));
    return stopped;
  };
  return { ...listening, stop };
}
