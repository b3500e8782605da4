import "server-only";

import { BlockList, isIP } from "node:net";

// Trusted-proxy mode: the user comes from a header, and only requests whose TCP peer is a
// configured proxy may carry it. Next does not give the peer address to proxy.ts (its
// x-forwarded-for is the client's when the client sends one), so Baton's web server
// (tools/serve-web.ts) writes the socket's address into PEER_ADDRESS_HEADER, replacing
// whatever the client sent, and marks the process; under a plain `next start` the mark is
// missing and the header is never believed.

export { isPeerAddressHeaderSet, PEER_ADDRESS_HEADER } from "@/lib/auth/peer-address-mark";

/** "::ffff:10.0.0.1" (an IPv4 peer on a dual-stack socket) is 10.0.0.1. */
function normalise(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** Whether `address` is one of `trusted` (addresses or CIDR ranges). */
export function isTrustedAddress(address: string | null, trusted: readonly string[]): boolean {
  if (!address) return false;
  const peer = normalise(address.trim());
  const family = isIP(peer);
  if (family === 0) return false;
  const list = new BlockList();
  for (const entry of trusted) {
    const [base = "", bits] = entry.split("/");
    const entryFamily = isIP(normalise(base));
    if (entryFamily === 0) continue;
    const type = entryFamily === 6 ? "ipv6" : "ipv4";
    if (bits === undefined) list.addAddress(normalise(base), type);
    else list.addSubnet(normalise(base), Number(bits), type);
  }
  return list.check(peer, family === 6 ? "ipv6" : "ipv4");
}
