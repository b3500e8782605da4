// Shared by Baton's web server (tools/serve-web.ts, which runs without the react-server
// condition and so cannot import server-only modules) and lib/auth/trusted-proxy.ts.

/** The TCP peer's address, written by tools/serve-web.ts over whatever the client sent. */
export const PEER_ADDRESS_HEADER = "x-baton-peer-address";

// A mark on the process, not a header or a variable a client or a shell could set: only the
// web server that writes PEER_ADDRESS_HEADER sets it, in its own process.
const PEER_ADDRESS_MARK = Symbol.for("baton.peer-address-header");

export function markPeerAddressHeaderSet(): void {
  (globalThis as Record<symbol, unknown>)[PEER_ADDRESS_MARK] = true;
}

export function isPeerAddressHeaderSet(): boolean {
  return (globalThis as Record<symbol, unknown>)[PEER_ADDRESS_MARK] === true;
}
