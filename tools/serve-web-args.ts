// The command line of Baton's web server (tools/serve-web.ts): `npm start` and the demo build it
// from the parsed configuration; the web server, which cannot read the configuration itself
// (it runs without the react-server condition, and lib/config.ts is server-only), parses it.
//   tools/serve-web.ts <port> [host] [--access open|oidc|proxy]
// `host` is BATON_LISTEN_HOST (absent: the default of the access mode, lib/http/listen-address.ts);
// `--access` defaults to open, whose default address is this machine only.
import { parseArgs } from "node:util";

import { type AccessMode, isListenHost, LISTEN_HOST_EXPECTED, type ListenSettings } from "@/lib/http/listen-address";

const ACCESS_MODES: readonly AccessMode[] = ["open", "oidc", "proxy"];
const USAGE = "usage: tools/serve-web.ts <port> [host] [--access open|oidc|proxy]";

export function buildServeWebArgs({ port, listenHost, accessMode }: ListenSettings): string[] {
  return [String(port), ...(listenHost === null ? [] : [listenHost]), "--access", accessMode];
}

export function parseServeWebArgs(argv: string[]): ListenSettings {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: { access: { type: "string", default: "open" } } });
  const [portText, listenHost, ...rest] = positionals;
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535 || rest.length > 0) throw new Error(USAGE);
  if (listenHost !== undefined && !isListenHost(listenHost)) throw new Error(`host ${LISTEN_HOST_EXPECTED} (got ${JSON.stringify(listenHost)}); ${USAGE}`);
  const accessMode = ACCESS_MODES.find((mode) => mode === values.access);
  if (accessMode === undefined) throw new Error(USAGE);
  return { port, listenHost: listenHost ?? null, accessMode };
}
