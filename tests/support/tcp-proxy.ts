import { createConnection, createServer, type Socket } from "node:net";

import { findFreePort } from "@/tools/free-port";

// A TCP proxy between Baton and a server, to cut Baton off (every connection reset, new ones
// refused by closing them at once) while the server itself goes on and others can still use it,
// or to stall it: new connections accepted and held, never answered (a server whose port is open
// while it starts up), until they are closed. With `connectDelayMs`, each new connection reaches
// the server that much later (what it sent meanwhile waits): a slow answer to short requests (a
// ZooKeeper four-letter word) beside a long-lived connection that answers at once.

export type TcpProxy = {
  port: number;
  url: string;
  cut(): void;
  /** From now on new connections are accepted and held without a byte forwarded; restore() forwards new ones again, the held ones stay held. */
  stall(): void;
  restore(): void;
  close(): Promise<void>;
};

export async function startTcpProxy(targetPort: number, options: { connectDelayMs?: number } = {}): Promise<TcpProxy> {
  const port = await findFreePort();
  const sockets = new Set<Socket>();
  let isCut = false;
  let isStalled = false;
  // Half-open allowed: a client that sends its request and ends its side (a ZooKeeper four-letter
  // word) still reads the server's answer.
  const server = createServer({ allowHalfOpen: true }, (client) => {
    if (isCut) {
      client.destroy();
      return;
    }
    if (isStalled) {
      sockets.add(client);
      client.on("error", () => undefined);
      client.on("close", () => sockets.delete(client));
      return;
    }
    sockets.add(client);
    client.on("error", () => undefined);
    const forward = () => {
      if (client.destroyed) return;
      const upstream = createConnection({ host: "127.0.0.1", port: targetPort, allowHalfOpen: true });
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on("error", () => undefined);
        socket.on("close", () => {
          sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    };
    if (options.connectDelayMs) setTimeout(forward, options.connectDelayMs);
    else forward();
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    cut() {
      isCut = true;
      for (const socket of sockets) socket.destroy();
    },
    stall() {
      isStalled = true;
    },
    restore() {
      isCut = false;
      isStalled = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
