// Which addresses Baton's servers listen on (the web server, tools/serve-web.ts, and the
// worker's /metrics), decided from BATON_LISTEN_HOST and the access-control mode: a pure
// decision, shared by the web server (which runs without the react-server condition, so nothing
// here may import a server-only module) and the worker. lib/http/listen-servers.ts binds it.
import { isIP } from "node:net";

export const LISTEN_HOST_SETTING = "BATON_LISTEN_HOST";

/** How the pages and the read API are protected (lib/auth/access-config.ts). */
export type AccessMode = "open" | "oidc" | "proxy";

export type ListenSettings = {
  /** BATON_LISTEN_HOST, or null when unset. */
  listenHost: string | null;
  accessMode: AccessMode;
  port: number;
};

/**
 * One address to bind. `host` null is every interface (Node's listen without a host: `::`,
 * which takes IPv4 too, or `0.0.0.0` on a machine without IPv6). An optional target may be left
 * out when the machine has no such address family (::1 without IPv6); any other failure stops.
 */
export type ListenTarget = { host: string | null; isOptional: boolean };

export type ListenPlan = {
  targets: ListenTarget[];
  port: number;
  /** The start-up line's last words: why these addresses, and how to change them. */
  note: string;
  /** One loud line when an open Baton is reachable beyond this machine; null otherwise. */
  warning: string | null;
  /** Where a browser or a client on this machine reaches the web app. */
  localUrl: string;
};

/** What the bind did: the hosts listening, and the optional ones left out with the error's code. */
export type ListenOutcome = { port: number; hosts: (string | null)[]; skipped: { host: string; code: string }[] };

/** Loopback on both families, so that `localhost` answers whichever of the two it resolves to first. */
const LOOPBACK_TARGETS: ListenTarget[] = [
  { host: "127.0.0.1", isOptional: false },
  { host: "::1", isOptional: true },
];

const EVERY_INTERFACE_HOSTS = new Set(["0.0.0.0", "::"]);
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** An IP address (IPv4 or IPv6, `0.0.0.0` and `::` meaning every interface) or a host name. */
export function isListenHost(value: string): boolean {
  if (isIP(value) !== 0) return true;
  // "1.2.3.999" is a mistyped address, not a name to look up.
  return HOST_NAME.test(value) && !/^[\d.]+$/.test(value);
}

export const LISTEN_HOST_EXPECTED = "must be an IP address (0.0.0.0 or :: for every interface, 127.0.0.1 for this machine only) or a host name";

function isLoopback(host: string): boolean {
  const lower = host.toLowerCase();
  return lower === "localhost" || lower === "::1" || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(lower);
}

function urlHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

const ACCESS_NOTES: Record<Exclude<AccessMode, "open">, string> = { oidc: "sign-in required", proxy: "trusted-proxy mode" };

/** Settings in, the addresses to bind and what to say about them out. */
export function planListen({ listenHost, accessMode, port }: ListenSettings): ListenPlan {
  if (listenHost === null) {
    if (accessMode === "open")
      return {
        targets: LOOPBACK_TARGETS,
        port,
        note: `open mode: this machine only; ${LISTEN_HOST_SETTING}=0.0.0.0 to listen on every interface`,
        warning: null,
        localUrl: `http://localhost:${port}`,
      };
    return {
      targets: [{ host: null, isOptional: false }],
      port,
      note: `${ACCESS_NOTES[accessMode]}; ${LISTEN_HOST_SETTING}=127.0.0.1 to listen on this machine only`,
      warning: null,
      localUrl: `http://localhost:${port}`,
    };
  }
  // `localhost` is both loopback addresses: bound to one, it would answer only the clients that resolve it the same way.
  const isLocalhost = listenHost.toLowerCase() === "localhost";
  const isEveryInterface = EVERY_INTERFACE_HOSTS.has(listenHost);
  const isExposed = !isLoopback(listenHost);
  const isOpen = accessMode === "open";
  const modeNote = !isOpen ? ACCESS_NOTES[accessMode] : isExposed ? "open mode: no sign-in" : "open mode: this machine only";
  const reach = isEveryInterface ? `port ${port} on any address of this machine` : `${urlHost(listenHost)}:${port}`;
  return {
    targets: isLocalhost ? LOOPBACK_TARGETS : [{ host: listenHost, isOptional: false }],
    port,
    note: `${LISTEN_HOST_SETTING}=${listenHost}; ${modeNote}`,
    warning:
      isOpen && isExposed
        ? `WARNING: ${LISTEN_HOST_SETTING}=${listenHost} with no access control: every lock holder, token prefix, service name and violation Baton knows is readable by anyone who can reach ${reach}, with no sign-in (set BATON_OIDC_ISSUER or BATON_AUTH_PROXY_HEADER, or unset ${LISTEN_HOST_SETTING} to keep Baton on this machine)`
        : null,
    localUrl: isLocalhost || isEveryInterface ? `http://localhost:${port}` : `http://${urlHost(listenHost)}:${port}`,
  };
}

function describeHost(host: string | null): string {
  return host ?? "all interfaces";
}

/**
 * The start-up line: `<subject> listening on 127.0.0.1 and ::1, port 3000 (<note>)`, with the
 * optional addresses left out named: `on 127.0.0.1 (not ::1: EADDRNOTAVAIL), port 3000`.
 */
export function describeListening(subject: string, plan: ListenPlan, outcome: ListenOutcome): string {
  const hosts = outcome.hosts.map(describeHost).join(" and ");
  const skipped = outcome.skipped.length === 0 ? "" : ` (not ${outcome.skipped.map((s) => `${s.host}: ${s.code}`).join(", ")})`;
  return `${subject} listening on ${hosts}${skipped}, port ${outcome.port} (${plan.note})`;
}
