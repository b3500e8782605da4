import "server-only";

import type { Db } from "@/lib/db/client";
import { TokenError } from "@/lib/auth/token-error";

export type RevokedApiToken = { name: string; revokedAt: string; wasAlreadyRevoked: boolean };

/**
 * Revokes a token by name: requests with it get 401 from then on. Revoking a revoked token
 * changes nothing (scripts may run twice). Throws TokenError when no token has that name.
 */
export async function revokeApiToken(db: Db, name: string): Promise<RevokedApiToken> {
  const updated = await db.apiToken.updateManyAndReturn({
    where: { name, revokedAt: null },
    data: { revokedAt: new Date() },
    select: { name: true, revokedAt: true },
  });
  const row = updated[0];
  if (row?.revokedAt) return { name: row.name, revokedAt: row.revokedAt.toISOString(), wasAlreadyRevoked: false };
  const existing = await db.apiToken.findUnique({ where: { name }, select: { revokedAt: true } });
  if (!existing) throw new TokenError(`no token is named "${name}" (see npm run token:list)`);
  // Not revoked by us and not revoked before: it was created between the two statements.
  if (!existing.revokedAt) throw new TokenError(`the token "${name}" changed while being revoked; run the command again`);
  return { name, revokedAt: existing.revokedAt.toISOString(), wasAlreadyRevoked: true };
}
