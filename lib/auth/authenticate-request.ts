import "server-only";

import type { AccessConfig } from "@/lib/auth/access-config";
import { openSession, SESSION_COOKIE, type Viewer } from "@/lib/auth/session-cookie";
import { isPeerAddressHeaderSet, isTrustedAddress, PEER_ADDRESS_HEADER } from "@/lib/auth/trusted-proxy";
import { verifyApiToken } from "@/lib/auth/verify-api-token";
import { getDb } from "@/lib/db/client";

const BEARER = /^Bearer +(\S+) *$/i;

function readCookie(header: string | null, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}

/**
 * Who makes a request to a protected route, or null: a read-scoped bearer token (any mode), a
 * sealed session cookie (sign-in), or the trusted proxy's header from a trusted peer.
 */
export async function authenticateRequest(headers: Headers, access: AccessConfig): Promise<Viewer | null> {
  const method = access.method;
  const authorization = headers.get("authorization");
  if (authorization !== null) {
    const match = BEARER.exec(authorization);
    const token = match ? await verifyApiToken(getDb(), match[1]!, "read") : null;
    return token ? { subject: `token:${token.name}`, email: null, name: token.name, via: "token" } : null;
  }
  if (method.mode === "oidc") return openSession(readCookie(headers.get("cookie"), SESSION_COOKIE), access.sessionSecret!);
  if (method.mode === "proxy") {
    const user = headers.get(method.userHeader)?.trim();
    if (!user || !isPeerAddressHeaderSet() || !isTrustedAddress(headers.get(PEER_ADDRESS_HEADER), method.trustedProxies)) return null;
    return { subject: user, email: user.includes("@") ? user : null, name: user, via: "proxy" };
  }
  return { subject: "anonymous", email: null, name: null, via: "open" };
}
