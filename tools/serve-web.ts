// Baton's web server: Next's request handler behind a plain Node HTTP server, so that each
// request carries its TCP peer's address in a header the client cannot forge (trusted-proxy
// mode accepts the user header only from configured proxy addresses; `next start` gives the
// app no trustworthy peer address), and a stop that does not wait on browser tabs' keep-alive
// connections (`next start` waits for them to go idle, which a refreshing dashboard never lets
// them do). `npm start` and the demo run it; usage: tools/serve-web.ts <port> [host].
import { createServer } from "node:http";

import next from "next";

import { markPeerAddressHeaderSet, PEER_ADDRESS_HEADER } from "@/lib/auth/peer-address-mark";
import { refuseForbiddenMethod } from "@/lib/http/refuse-forbidden-method";

/** How long requests under way may take to finish once the server is asked to stop. */
const CLOSE_GRACE_MS = 5_000;

async function main(): Promise<void> {
  const port = Number(process.argv[2]);
  const hostname = process.argv[3];
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error("usage: tools/serve-web.ts <port> [host]");
  markPeerAddressHeaderSet();
  const app = next({ dev: false, dir: process.cwd(), port, hostname });
  await app.prepare();
  const handle = app.getRequestHandler();
  let isStopping = false;
  const server = createServer((request, response) => {
    // Stopping: this answer is the connection's last, or a tab refreshing every few seconds
    // would keep its keep-alive connection busy, and the server open, for as long as it stays open.
    if (isStopping) response.setHeader("connection", "close");
    // Next would answer a TRACE with a 500 and a logged TypeError.
    if (refuseForbiddenMethod(request, response)) return;
    // Replaces any value the client sent: this header is the socket's word, never the client's.
    request.headers[PEER_ADDRESS_HEADER] = request.socket.remoteAddress ?? "";
    void handle(request, response);
  });
  server.listen(port, hostname, () => console.log(`[baton] web server listening on ${hostname ?? "all interfaces"}, port ${port}`));
  // Requests under way get CLOSE_GRACE_MS to finish; idle connections close at once.
  const stop = () => {
    if (isStopping) return;
    isStopping = true;
    server.close(() => process.exit(0));
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((error: unknown) => {
  console.error("Baton's web server cannot start:", error);
  process.exit(1);
});
