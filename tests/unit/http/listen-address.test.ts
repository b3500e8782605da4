import { describe, expect, it } from "vitest";

import { ConfigError, loadConfig } from "@/lib/config";
import { describeListening, isListenHost, type ListenSettings, planListen } from "@/lib/http/listen-address";
import { buildServeWebArgs, parseServeWebArgs } from "@/tools/serve-web-args";

// Where Baton's web server and the worker's /metrics listen: this machine only while Baton is
// open, every interface once sign-in or the trusted proxy is on, or what BATON_LISTEN_HOST says.

const OPEN = { listenHost: null, accessMode: "open", port: 3000 } satisfies ListenSettings;
const LOOPBACK = [
  { host: "127.0.0.1", isOptional: false },
  { host: "::1", isOptional: true },
];
const EVERY_INTERFACE = [{ host: null, isOptional: false }];

describe("planListen", () => {
  it.each<[string, ListenSettings, object[], string]>([
    ["open, unset: this machine only", OPEN, LOOPBACK, "http://localhost:3000"],
    ["sign-in, unset: every interface", { ...OPEN, accessMode: "oidc" }, EVERY_INTERFACE, "http://localhost:3000"],
    ["trusted proxy, unset: every interface", { ...OPEN, accessMode: "proxy" }, EVERY_INTERFACE, "http://localhost:3000"],
    ["open, 0.0.0.0", { ...OPEN, listenHost: "0.0.0.0" }, [{ host: "0.0.0.0", isOptional: false }], "http://localhost:3000"],
    ["open, ::", { ...OPEN, listenHost: "::" }, [{ host: "::", isOptional: false }], "http://localhost:3000"],
    ["open, localhost: both loopback addresses", { ...OPEN, listenHost: "localhost" }, LOOPBACK, "http://localhost:3000"],
    ["sign-in, 127.0.0.1", { ...OPEN, accessMode: "oidc", listenHost: "127.0.0.1" }, [{ host: "127.0.0.1", isOptional: false }], "http://127.0.0.1:3000"],
    ["proxy, one address", { ...OPEN, accessMode: "proxy", listenHost: "10.1.2.3" }, [{ host: "10.1.2.3", isOptional: false }], "http://10.1.2.3:3000"],
    ["open, an IPv6 address", { ...OPEN, listenHost: "fd00::2" }, [{ host: "fd00::2", isOptional: false }], "http://[fd00::2]:3000"],
  ])("%s", (_, settings, targets, localUrl) => {
    const plan = planListen(settings);
    expect(plan.targets).toEqual(targets);
    expect(plan.localUrl).toBe(localUrl);
    expect(plan.port).toBe(3000);
  });

  it("warns, in one line, when an open Baton listens beyond this machine, and says what it exposes", () => {
    for (const listenHost of ["0.0.0.0", "::", "192.0.2.2", "baton.internal"]) {
      const warning = planListen({ ...OPEN, listenHost }).warning;
      expect(warning).toMatch(new RegExp(`^WARNING: BATON_LISTEN_HOST=${listenHost.replaceAll(".", "\\.")} with no access control: `));
      expect(warning).toContain("every lock holder, token prefix, service name and violation");
      expect(warning).toContain("with no sign-in");
      expect(warning).not.toContain("\n");
    }
    expect(planListen({ ...OPEN, listenHost: "0.0.0.0" }).warning).toContain("anyone who can reach port 3000 on any address of this machine");
    expect(planListen({ ...OPEN, listenHost: "192.0.2.2" }).warning).toContain("anyone who can reach 192.0.2.2:3000");
  });

  it("does not warn on loopback, nor once access control is on", () => {
    for (const settings of [
      OPEN,
      { ...OPEN, listenHost: "127.0.0.1" },
      { ...OPEN, listenHost: "::1" },
      { ...OPEN, listenHost: "localhost" },
      { ...OPEN, listenHost: "127.0.0.2" },
      { ...OPEN, accessMode: "oidc", listenHost: "0.0.0.0" },
      { ...OPEN, accessMode: "proxy", listenHost: "::" },
      { ...OPEN, accessMode: "proxy" },
    ] satisfies ListenSettings[]) {
      expect(planListen(settings).warning, JSON.stringify(settings)).toBeNull();
    }
  });
});

describe("describeListening: the start-up line", () => {
  it.each<[string, ListenSettings, (string | null)[], { host: string; code: string }[], string]>([
    [
      "open, default",
      OPEN,
      ["127.0.0.1", "::1"],
      [],
      "web server listening on 127.0.0.1 and ::1, port 3000 (open mode: this machine only; BATON_LISTEN_HOST=0.0.0.0 to listen on every interface)",
    ],
    [
      "open, default, no IPv6 here",
      OPEN,
      ["127.0.0.1"],
      [{ host: "::1", code: "EADDRNOTAVAIL" }],
      "web server listening on 127.0.0.1 (not ::1: EADDRNOTAVAIL), port 3000 (open mode: this machine only; BATON_LISTEN_HOST=0.0.0.0 to listen on every interface)",
    ],
    [
      "sign-in, default",
      { ...OPEN, accessMode: "oidc" },
      [null],
      [],
      "web server listening on all interfaces, port 3000 (sign-in required; BATON_LISTEN_HOST=127.0.0.1 to listen on this machine only)",
    ],
    [
      "trusted proxy, default",
      { ...OPEN, accessMode: "proxy" },
      [null],
      [],
      "web server listening on all interfaces, port 3000 (trusted-proxy mode; BATON_LISTEN_HOST=127.0.0.1 to listen on this machine only)",
    ],
    [
      "open, 0.0.0.0",
      { ...OPEN, listenHost: "0.0.0.0" },
      ["0.0.0.0"],
      [],
      "web server listening on 0.0.0.0, port 3000 (BATON_LISTEN_HOST=0.0.0.0; open mode: no sign-in)",
    ],
    [
      "open, 127.0.0.1",
      { ...OPEN, listenHost: "127.0.0.1" },
      ["127.0.0.1"],
      [],
      "web server listening on 127.0.0.1, port 3000 (BATON_LISTEN_HOST=127.0.0.1; open mode: this machine only)",
    ],
    [
      "sign-in, ::",
      { ...OPEN, accessMode: "oidc", listenHost: "::" },
      ["::"],
      [],
      "web server listening on ::, port 3000 (BATON_LISTEN_HOST=::; sign-in required)",
    ],
  ])("%s", (_, settings, hosts, skipped, line) => {
    expect(describeListening("web server", planListen(settings), { port: 3000, hosts, skipped })).toBe(line);
  });

  it("names the port the kernel picked when asked for port 0", () => {
    expect(describeListening("metrics (GET /metrics)", planListen({ ...OPEN, port: 0 }), { port: 41234, hosts: ["127.0.0.1", "::1"], skipped: [] })).toMatch(
      /^metrics \(GET \/metrics\) listening on 127\.0\.0\.1 and ::1, port 41234 \(/,
    );
  });
});

describe("BATON_LISTEN_HOST", () => {
  it.each(["0.0.0.0", "::", "127.0.0.1", "::1", "localhost", "fd00::2", "192.0.2.2", "baton.internal", "baton-web-0.baton.svc.cluster.local"])(
    "accepts %s",
    (value) => {
      expect(isListenHost(value)).toBe(true);
      expect(loadConfig({ BATON_LISTEN_HOST: value }).listenHost).toBe(value);
    },
  );

  it("is unset by default, empty counts as unset", () => {
    expect(loadConfig({}).listenHost).toBeNull();
    expect(loadConfig({ BATON_LISTEN_HOST: "" }).listenHost).toBeNull();
  });

  it.each(["not a host!", "1.2.3.999", "[::1]", "0.0.0.0:3000", "http://0.0.0.0", "-baton", "baton_web"])(
    "refuses %j with one line naming the setting",
    (value) => {
      expect(isListenHost(value)).toBe(false);
      let error: unknown;
      try {
        loadConfig({ BATON_LISTEN_HOST: value });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toBe(
        `Invalid configuration: BATON_LISTEN_HOST must be an IP address (0.0.0.0 or :: for every interface, 127.0.0.1 for this machine only) or a host name (got ${JSON.stringify(value)})`,
      );
    },
  );
});

describe("the web server's command line (npm start and the demo build it, tools/serve-web.ts parses it)", () => {
  it.each<ListenSettings>([OPEN, { ...OPEN, listenHost: "0.0.0.0" }, { ...OPEN, accessMode: "proxy" }, { listenHost: "::", accessMode: "oidc", port: 8080 }])(
    "carries %j",
    (settings) => {
      expect(parseServeWebArgs(buildServeWebArgs(settings))).toEqual(settings);
    },
  );

  it("without --access is open: this machine only unless a host is given", () => {
    expect(parseServeWebArgs(["3000"])).toEqual(OPEN);
    expect(parseServeWebArgs(["3000", "127.0.0.1"])).toEqual({ ...OPEN, listenHost: "127.0.0.1" });
  });

  it.each([[["eighty"]], [["3000", "not a host!"]], [["3000", "--access", "none"]], [["3000", "127.0.0.1", "extra"]]])("refuses %j", (argv) => {
    expect(() => parseServeWebArgs(argv)).toThrow(/usage: tools\/serve-web\.ts <port>/);
  });
});
