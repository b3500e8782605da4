// Baton's web server: Next's request handler behind a plain Node HTTP server, so that each
// request carries its TCP peer's address in a header the client cannot forge (trusted-proxy
// mode accepts the user header only from configured proxy addresses; `next start` gives the
// app no trustworthy peer address), and a stop that does not wait on browser tabs' keep-alive
// connections (`next start` waits for them to go idle, which a refreshing dashboard never lets
// them do). `npm start` and the demo run it; usage (tools/serve-web-args.ts):
//   tools/serve-web.ts <port> [host] [--access open|oidc|proxy]
// It listens where lib/http/listen-address.ts decides: this machine only (127.0.0.1 and ::1)
// while Baton is open, every interface once access control is on, or the host given
// (BATON_LISTEN_HOST); tools/start-web-server.ts listens.
import next from "next";

import { markPeerAddressHeaderSet } from "@/lib/auth/peer-address-mark";
import { planListen } from "@/lib/http/listen-address";
import { parseServeWebArgs } from "@/tools/serve-web-args";
import { startWebServer } from "@/tools/start-web-server";

async function main(): Promise<void> {
  const settings = parseServeWebArgs(process.argv.slice(2));
  markPeerAddressHeaderSet();
  // Next addresses itself at this host: the first address listened on (none: every interface).
  const hostname = planListen(settings).targets[0]?.host ?? undefined;
  const app = next({ dev: false, dir: process.cwd(), port: settings.port, hostname });
  await app.prepare();
  const handle = app.getRequestHandler();
  const web = await startWebServer(
    settings,
    (request, response) => void handle(request, response),
    (line) => console.log(`[baton] ${line}`),
  );
  const stop = () => void web.stop().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((error: unknown) => {
  console.error("Baton's web server cannot start:", error);
  process.exit(1);
});
