import http from "node:http";
import os from "node:os";

import { expect, test } from "@playwright/test";

import type { AccessMode } from "@/lib/http/listen-address";
import { startBatonWeb } from "@/tests/support/baton-web";
import { buildServeWebArgs } from "@/tools/serve-web-args";
import { findFreePort } from "@/tools/free-port";

// Baton's real web server (the production build, tools/serve-web.ts with the arguments `npm
// start` builds from the configuration), in each mode: open and unconfigured it answers on this
// machine only, and a connection to the machine's outside address is refused; told
// BATON_LISTEN_HOST=0.0.0.0, or with the trusted proxy on, it answers there too.

const OUTSIDE_IPV4 = Object.values(os.networkInterfaces())
  .flatMap((addresses) => addresses ?? [])
  .find((address) => address.family === "IPv4" && !address.internal)?.address;

/** "answered <status>", or the connection error's code. */
function probe(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const request = http.get({ host, port, path: "/api/openapi.json", agent: false, timeout: 10_000 }, (response) => {
      response.resume();
      resolve(`answered ${response.statusCode}`);
    });
    request.on("timeout", () => request.destroy(new Error("timeout")));
    request.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** The web server as `npm start` starts it for these settings (tools/start.ts: lib/config.ts's listen settings, then buildServeWebArgs). */
async function startInMode(env: Record<string, string>, listen: { listenHost: string | null; accessMode: AccessMode }) {
  const port = await findFreePort();
  const serveArgs = buildServeWebArgs({ port, ...listen }).slice(1);
  return startBatonWeb({ env: { ...env, DATABASE_URL: process.env.BATON_TEST_DATABASE_URL ?? "" }, port, serveArgs });
}

test.describe("where Baton's web server listens", () => {
  test.skip(OUTSIDE_IPV4 === undefined, "this machine has no non-loopback IPv4 address to connect to");
  test.describe.configure({ mode: "serial" });

  test("open, with nothing configured: loopback only, and the start-up line says how to change it", async () => {
    const web = await startInMode({}, { listenHost: null, accessMode: "open" });
    try {
      expect(await probe("127.0.0.1", web.port)).toBe("answered 200");
      expect(await probe(OUTSIDE_IPV4!, web.port)).toBe("ECONNREFUSED");
      expect(web.output()).toContain("open mode: this machine only; BATON_LISTEN_HOST=0.0.0.0 to listen on every interface");
    } finally {
      await web.stop();
    }
  });

  test("open, told BATON_LISTEN_HOST=0.0.0.0: every interface, said loudly", async () => {
    const web = await startInMode({ BATON_LISTEN_HOST: "0.0.0.0" }, { listenHost: "0.0.0.0", accessMode: "open" });
    try {
      expect(await probe(OUTSIDE_IPV4!, web.port)).toBe("answered 200");
      expect(web.output()).toContain("(BATON_LISTEN_HOST=0.0.0.0; open mode: no sign-in)");
    } finally {
      await web.stop();
    }
  });

  test("behind the trusted proxy: every interface by default", async () => {
    const web = await startInMode(
      { BATON_AUTH_PROXY_HEADER: "X-Forwarded-Email", BATON_AUTH_TRUSTED_PROXIES: "127.0.0.1" },
      { listenHost: null, accessMode: "proxy" },
    );
    try {
      expect(await probe(OUTSIDE_IPV4!, web.port)).toBe("answered 200");
    } finally {
      await web.stop();
    }
  });
});
