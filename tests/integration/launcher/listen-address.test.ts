import http from "node:http";
import os from "node:os";

import { afterEach, describe, expect, it } from "vitest";

import { PEER_ADDRESS_HEADER } from "@/lib/auth/peer-address-mark";
import { getListenSettings, loadConfig } from "@/lib/config";
import { planListen } from "@/lib/http/listen-address";
import { closeServers, KEEP_ALIVE_TIMEOUT_MS, listenOnPlan } from "@/lib/http/listen-servers";
import { startWebServer, type WebServer } from "@/tools/start-web-server";

// Where Baton's web server really listens, in each mode: started as tools/serve-web.ts starts it
// (settings parsed from the environment by lib/config.ts, the listen plan, one server per
// address, the peer-address header, the start-up line), with real sockets, in front of a trivial
// handler instead of Next's, so that no production build is needed. A connection to this
// machine's non-loopback IPv4 address must be refused while Baton is open, and get through once
// BATON_LISTEN_HOST says every interface or the trusted proxy is on.

const TRUSTED_PROXY = { BATON_AUTH_PROXY_HEADER: "X-Forwarded-Email", BATON_AUTH_TRUSTED_PROXIES: "127.0.0.1" };

/** A non-loopback IPv4 address of this machine, or null when it has none. */
function findOutsideIpv4(): string | null {
  for (const addresses of Object.values(os.networkInterfaces())) {
    const found = addresses?.find((address) => address.family === "IPv4" && !address.internal);
    if (found) return found.address;
  }
  return null;
}

const OUTSIDE_IPV4 = findOutsideIpv4();
const NO_OUTSIDE_IPV4 = "this machine has no non-loopback IPv4 address (os.networkInterfaces()): nothing to connect to from outside loopback";

/** Whether this machine has ::1 (a machine without IPv6 listens on 127.0.0.1 alone). */
const HAS_IPV6_LOOPBACK = Object.values(os.networkInterfaces()).some((addresses) => addresses?.some((address) => address.address === "::1"));

let running: WebServer | null = null;

afterEach(async () => {
  await running?.stop();
  running = null;
});

async function startBaton(env: Record<string, string>): Promise<{ web: WebServer; lines: string[]; addresses: string[] }> {
  const lines: string[] = [];
  // Port 0: the kernel's pick, the same port on every address.
  const settings = getListenSettings(loadConfig(env), 0);
  const web = await startWebServer(
    settings,
    (request, response) => response.end(`peer ${request.headers[PEER_ADDRESS_HEADER]}`),
    (line) => lines.push(line),
  );
  running = web;
  const addresses = web.servers.map((server) => (server.address() as { address: string }).address);
  return { web, lines, addresses };
}

/** What a request to host:port meets: "answered by <peer>" from the server, or the connection error's code. */
function probe(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const request = http.get({ host, port, path: "/", agent: false, timeout: 5_000 }, (response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => resolve(`answered ${response.statusCode}: ${body}`));
    });
    request.on("timeout", () => request.destroy(Object.assign(new Error("no answer within 5 s"), { code: "TIMEOUT" })));
    request.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe("open mode, BATON_LISTEN_HOST unset: this machine only", () => {
  it("listens on 127.0.0.1 and ::1, both answer (localhost too), and says so in one line", async () => {
    const { web, lines, addresses } = await startBaton({});
    expect(addresses).toEqual(HAS_IPV6_LOOPBACK ? ["127.0.0.1", "::1"] : ["127.0.0.1"]);
    expect(await probe("127.0.0.1", web.port)).toBe("answered 200: peer 127.0.0.1");
    if (HAS_IPV6_LOOPBACK) expect(await probe("::1", web.port)).toBe("answered 200: peer ::1");
    expect(await probe("localhost", web.port)).toMatch(/^answered 200: peer (127\.0\.0\.1|::1)$/);
    expect(lines).toEqual([
      `web server listening on ${HAS_IPV6_LOOPBACK ? "127.0.0.1 and ::1" : "127.0.0.1 (not ::1: EADDRNOTAVAIL)"}, port ${web.port} (open mode: this machine only; BATON_LISTEN_HOST=0.0.0.0 to listen on every interface)`,
    ]);
  });

  it("refuses a connection to this machine's non-loopback IPv4 address", async (context) => {
    if (OUTSIDE_IPV4 === null) return context.skip(NO_OUTSIDE_IPV4);
    const { web } = await startBaton({});
    expect(await probe(OUTSIDE_IPV4, web.port)).toBe("ECONNREFUSED");
  });
});

describe("open mode, BATON_LISTEN_HOST=0.0.0.0: every IPv4 interface, as told", () => {
  it("listens on 0.0.0.0 and says so", async () => {
    const { web, lines, addresses } = await startBaton({ BATON_LISTEN_HOST: "0.0.0.0" });
    expect(addresses).toEqual(["0.0.0.0"]);
    expect(await probe("127.0.0.1", web.port)).toBe("answered 200: peer 127.0.0.1");
    expect(lines).toEqual([`web server listening on 0.0.0.0, port ${web.port} (BATON_LISTEN_HOST=0.0.0.0; open mode: no sign-in)`]);
  });

  it("accepts a connection to this machine's non-loopback IPv4 address", async (context) => {
    if (OUTSIDE_IPV4 === null) return context.skip(NO_OUTSIDE_IPV4);
    const { web } = await startBaton({ BATON_LISTEN_HOST: "0.0.0.0" });
    expect(await probe(OUTSIDE_IPV4, web.port)).toBe(`answered 200: peer ${OUTSIDE_IPV4}`);
  });
});

describe("trusted-proxy mode, BATON_LISTEN_HOST unset: every interface", () => {
  it("listens on every interface (Node's `::`, or 0.0.0.0 without IPv6) and says how to keep it on this machine", async () => {
    const { web, lines, addresses } = await startBaton(TRUSTED_PROXY);
    expect(addresses).toHaveLength(1);
    expect(["::", "0.0.0.0"]).toContain(addresses[0]);
    expect(await probe("127.0.0.1", web.port)).toMatch(/^answered 200: peer (::ffff:)?127\.0\.0\.1$/);
    expect(lines).toEqual([
      `web server listening on all interfaces, port ${web.port} (trusted-proxy mode; BATON_LISTEN_HOST=127.0.0.1 to listen on this machine only)`,
    ]);
  });

  it("accepts a connection to this machine's non-loopback IPv4 address", async (context) => {
    if (OUTSIDE_IPV4 === null) return context.skip(NO_OUTSIDE_IPV4);
    const { web } = await startBaton(TRUSTED_PROXY);
    expect(await probe(OUTSIDE_IPV4, web.port)).toMatch(new RegExp(`^answered 200: peer (::ffff:)?${OUTSIDE_IPV4.replaceAll(".", "\\.")}$`));
  });

  it("stays on this machine when BATON_LISTEN_HOST=127.0.0.1", async (context) => {
    if (OUTSIDE_IPV4 === null) return context.skip(NO_OUTSIDE_IPV4);
    const { web, addresses } = await startBaton({ ...TRUSTED_PROXY, BATON_LISTEN_HOST: "127.0.0.1" });
    expect(addresses).toEqual(["127.0.0.1"]);
    expect(await probe(OUTSIDE_IPV4, web.port)).toBe("ECONNREFUSED");
  });
});

describe("keep-alive", () => {
  // A client polling every 5 s, or a proxy holding its upstream connections for 60 s, must not
  // send a request on a connection the server is closing at that moment (Node's default closes
  // idle connections after 5 s): the server keeps them longer, and tells the client how long.
  it("keeps an idle connection open for longer than a proxy's minute, and says so in the Keep-Alive header", async () => {
    const { web } = await startBaton({});
    const agent = new http.Agent({ keepAlive: true });
    try {
      const keepAlive = await new Promise<string>((resolve, reject) => {
        http
          .get({ host: "127.0.0.1", port: web.port, path: "/", agent }, (response) => {
            response.resume();
            response.on("end", () => resolve(String(response.headers["keep-alive"])));
          })
          .on("error", reject);
      });
      expect(keepAlive).toBe(`timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`);
      expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(60_000);
    } finally {
      agent.destroy();
    }
  });
});

describe("an address this machine lacks", () => {
  // 192.0.2.0/24 is TEST-NET-1: .254 is nobody's here.
  const missing = OUTSIDE_IPV4 === "192.0.2.254" ? "192.0.2.253" : "192.0.2.254";

  it("is left out when optional, as ::1 is on a machine without IPv6: the rest still listens", async () => {
    const plan = planListen({ listenHost: null, accessMode: "open", port: 0 });
    const listening = await listenOnPlan({ ...plan, targets: [plan.targets[0]!, { host: missing, isOptional: true }] }, () =>
      http.createServer((_, response) => response.end("ok")),
    );
    try {
      expect(listening.hosts).toEqual(["127.0.0.1"]);
      expect(listening.skipped).toEqual([{ host: missing, code: "EADDRNOTAVAIL" }]);
      expect(await probe("127.0.0.1", listening.port)).toBe("answered 200: ok");
    } finally {
      await closeServers(listening.servers);
    }
  });

  it("stops the start when it is the one asked for (BATON_LISTEN_HOST), naming it", async () => {
    await expect(startBaton({ BATON_LISTEN_HOST: missing })).rejects.toThrow(new RegExp(`EADDRNOTAVAIL.*${missing.replaceAll(".", "\\.")}`));
  });
});
