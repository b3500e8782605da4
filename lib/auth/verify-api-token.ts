import "server-only";

import type { Db } from "@/lib/db/client";
import { hashToken, isWellFormedToken } from "@/lib/auth/token-format";
import type { TokenScope } from "@/lib/auth/token-scope";

export type AuthenticatedToken = { id: number; name: string };

// last_used_at is for people ("is this token still used?"): minute resolution is plenty, and
// it spares a write on almost every request.
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * The token's identity, or null when it is malformed, unknown, revoked or lacks `scope` (an
 * ingest-only token cannot read, a read-only token cannot write).
 *
 * Lookup is by sha256(token) through a unique index. No constant-time comparison is needed: an
 * attacker who times the index lookup learns about the hash of the guess, and sha256 being
 * preimage-resistant, that says nothing about any real token.
 */
export async function verifyApiToken(db: Db, token: string, scope: TokenScope = "ingest"): Promise<AuthenticatedToken | null> {
  if (!isWellFormedToken(token)) return null;
  const row = await db.apiToken.findUnique({
    where: { tokenHash: hashToken(token) },
    select: { id: true, name: true, scopes: true, lastUsedAt: true, revokedAt: true },
  });
  if (!row || row.revokedAt || !row.scopes.includes(scope)) return null;
  const now = new Date();
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: now }, select: { id: true } });
  }
  return { id: row.id, name: row.name };
}
