// Binds a listen plan (lib/http/listen-address.ts): one Node server per address, since a server
// listens on one. Used by Baton's web server (tools/serve-web.ts, without the react-server
// condition: no server-only imports here) and the worker's /metrics.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

import type { ListenOutcome, ListenPlan } from "@/lib/http/listen-address";

/**
 * How long an idle keep-alive connection stays open. Node's default (5 s) closes it just as a
 * client polling every few seconds, or a reverse proxy keeping its upstream connections (nginx
 * and cloud load balancers: 60 s), sends its next request on it: that request meets a reset
 * connection. Longer than those, the client closes first.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** Above the keep-alive timeout, as Node requires for the two to work together. */
const HEADERS_TIMEOUT_MS = KEEP_ALIVE_TIMEOUT_MS + 1_000;

/** Errors of an address family this machine lacks (::1 without IPv6): an optional address is then left out. */
const MISSING_FAMILY_CODES = new Set(["EADDRNOTAVAIL", "EAFNOSUPPORT"]);

export type ListeningServers = ListenOutcome & { servers: Server[] };

function listenOne(server: Server, port: number, host: string | null): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    const onListening = () => {
      server.off("error", reject);
      resolve();
    };
    if (host === null) server.listen(port, onListening);
    else server.listen(port, host, onListening);
  });
}

export function closeServers(servers: Server[]): Promise<void> {
  return Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())))).then(() => undefined);
}

/**
 * Listens on every address of `plan`, each with a server from `createServer`; resolves once all
 * listen. A plan on port 0 gets the kernel's pick for its first address, and that port for the
 * others. Rejects (and closes what it opened) when a required address cannot be bound.
 */
export async function listenOnPlan(plan: ListenPlan, createServer: () => Server): Promise<ListeningServers> {
  const servers: Server[] = [];
  const hosts: (string | null)[] = [];
  const skipped: ListenOutcome["skipped"] = [];
  let port = plan.port;
  try {
    for (const target of plan.targets) {
      const server = createServer();
      server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
      server.headersTimeout = HEADERS_TIMEOUT_MS;
      try {
        await listenOne(server, port, target.host);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? "";
        if (!target.isOptional || target.host === null || !MISSING_FAMILY_CODES.has(code)) throw error;
        skipped.push({ host: target.host, code });
        continue;
      }
      servers.push(server);
      hosts.push(target.host);
      port = (server.address() as AddressInfo).port;
    }
  } catch (error) {
    await closeServers(servers);
    throw error;
  }
  return { servers, hosts, skipped, port };
}
