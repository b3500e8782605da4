import http from "node:http";

export type TestServer = { url: string; close(): Promise<void> };

/** An HTTP server on 127.0.0.1 with a free port, for testing what crosses HTTP. */
export function startHttpServer(handler: http.RequestListener): Promise<TestServer> {
  return new Promise((resolve) => {
    const server = http.createServer(handler);
    server.listen(0, "127.0.0.1", () => {
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
