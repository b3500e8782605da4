// Baton's web server: Next's request handler behind a plain Node HTTP server, so that each
// request carries its TCP peer's address in a header the client cannot forge (trusted-proxy
// mode accepts the user header only from configured proxy addresses; `next start` gives the
// app no trustworthy peer address). `npm start` runs it; usage: tools/serve-web.ts <port> [host].
import { createServer } from "node:http";

import next from "next";

import { markPeerAddressHeaderSet, PEER_ADDRESS_HEADER } from "@/lib/auth/peer-address-mark";
import { refuseForbiddenMethod } from "@/lib/http/refuse-forbidden-method";

async function main(): Promise<void> {
  const port = Number(process.argv[2]);
  const hostname = process.argv[3];
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error("usage: tools/serve-web.ts <port> [host]");
  markPeerAddressHeaderSet();
  const app = next({ dev: false, dir: process.cwd(), port, hostname });
  await app.prepare();
  const handle = app.getRequestHandler();
  const server = createServer((request, response) => {
    // Next would answer a TRACE with a 500 and a logged TypeError.
    if (refuseForbiddenMethod(request, response)) return;
    // Replaces any value the client sent: this header is the socket's word, never the client's.
    request.headers[PEER_ADDRESS_HEADER] = request.socket.remoteAddress ?? "";
    void handle(request, response);
  });
  server.listen(port, hostname, () => console.log(`[baton] web server listening on ${hostname ?? "all interfaces"}, port ${port}`));
  const stop = () => server.close(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((error: unknown) => {
  console.error("Baton's web server cannot start:", error);
  process.exit(1);
});
