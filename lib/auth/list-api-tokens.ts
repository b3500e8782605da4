import "server-only";

import type { TokenScope } from "@/lib/auth/token-scope";
import type { Db } from "@/lib/db/client";

export type ApiTokenSummary = { name: string; prefix: string; scopes: TokenScope[]; createdAt: string; lastUsedAt: string | null; revokedAt: string | null };

/** Every token, oldest first, without its hash. */
export async function listApiTokens(db: Db): Promise<ApiTokenSummary[]> {
  const rows = await db.apiToken.findMany({
    orderBy: { createdAt: "asc" },
    select: { name: true, prefix: true, scopes: true, createdAt: true, lastUsedAt: true, revokedAt: true },
  });
  return rows.map((row) => ({
    ...row,
    scopes: row.scopes as TokenScope[],
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  }));
}
