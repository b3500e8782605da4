import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createRateLimiter } from "@/lib/poller/rate-limiter";
import { createZookeeperConnection, type ZookeeperConnection } from "@/lib/sources/zookeeper/zookeeper-connection";
import { pollUntil } from "@/tests/support/poll-until";
import { startTcpProxy, type TcpProxy } from "@/tests/support/tcp-proxy";
import { startZookeeperServer, type TestZookeeperServer } from "@/tests/support/zookeeper-server";

// Baton's ZooKeeper connection when Baton starts before the server: a real ZooKeeper 3.9.3, and
// between them a TCP proxy that can hold connections unanswered, as a server does whose port is
// open while it starts up. node-zookeeper-client has no timeout on the session handshake: a
// client held that way never got a session until the server restarted.

const OPTIONS = { sessionTimeoutMs: 4_000, requestTimeoutMs: 500 };
/** A client without a session is replaced after twice the request timeout (at most the session timeout). */
const SESSION_BOUND_MS = 1_000;

let server: TestZookeeperServer;
let proxy: TcpProxy;

function connect(connectString: string, logs: string[]): ZookeeperConnection {
  return createZookeeperConnection({
    connectString,
    ...OPTIONS,
    limiter: createRateLimiter({ requestsPerSecond: 100, maxConcurrency: 4 }),
    log: (line) => logs.push(line),
  });
}

/** Reads "/" until it answers: a session is up. Bounded by reads, each failing within the request timeout. */
async function waitForSession(connection: ZookeeperConnection): Promise<void> {
  await pollUntil(
    async () =>
      connection.getData("/").then(
        () => true,
        () => false,
      ),
    Boolean,
    { description: "a session", maxAttempts: 40, intervalMs: 50 },
  );
}

beforeAll(async () => {
  server = await startZookeeperServer();
  proxy = await startTcpProxy(server.port);
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await server?.dispose();
});

describe("a ZooKeeper that answers late", () => {
  it("a connection accepted but never answered is replaced within the bound; the log says so once, and when the session came", async () => {
    const logs: string[] = [];
    proxy.stall();
    const connection = connect(`127.0.0.1:${proxy.port}`, logs);
    try {
      await expect(connection.ready()).rejects.toThrow(/not connected within 500 ms/);
      // The server answers from now on; the connection the client holds stays unanswered.
      proxy.restore();
      await waitForSession(connection);
      expect(connection.session().id).toMatch(/^0x[0-9a-f]+$/);
      expect(logs.filter((line) => line.includes(`no session within ${SESSION_BOUND_MS} ms`))).toHaveLength(1);
      expect(logs.filter((line) => /session established after \d+ dropped connection/.test(line))).toHaveLength(1);
    } finally {
      await connection.close();
    }
  });

  it("Baton started while ZooKeeper is down, then ZooKeeper started: a session every time (3 starts)", async () => {
    for (let start = 1; start <= 3; start++) {
      await server.stop();
      const logs: string[] = [];
      const connection = connect(`127.0.0.1:${server.port}`, logs);
      try {
        await expect(connection.ready()).rejects.toThrow(/not connected/);
        await server.restart();
        const startedAt = performance.now();
        await waitForSession(connection);
        process.stdout.write(
          `[late-server] start ${start}: session ${Math.round(performance.now() - startedAt)} ms after ZooKeeper answered; ${logs.length} log lines\n`,
        );
      } finally {
        await connection.close();
      }
    }
  });
});
