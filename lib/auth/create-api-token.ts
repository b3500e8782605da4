import "server-only";

import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { displayPrefix, generateToken, hashToken, isValidTokenName, TOKEN_NAME_RULE } from "@/lib/auth/token-format";
import { TokenError } from "@/lib/auth/token-error";
import type { TokenScope } from "@/lib/auth/token-scope";

export type CreatedApiToken = {
  name: string;
  prefix: string;
  scopes: TokenScope[];
  createdAt: string /** Shown once; only its hash is stored. */;
  token: string;
};

/**
 * Creates a token under a unique name with its scopes (an ingest token by default). Throws
 * TokenError for a bad or taken name or no scope.
 */
export async function createApiToken(db: Db, name: string, scopes: TokenScope[] = ["ingest"]): Promise<CreatedApiToken> {
  if (!isValidTokenName(name)) throw new TokenError(`invalid token name "${name}": use ${TOKEN_NAME_RULE}`);
  if (scopes.length === 0) throw new TokenError("a token needs at least one scope");
  const token = generateToken();
  try {
    const row = await db.apiToken.create({
      data: { name, tokenHash: hashToken(token), prefix: displayPrefix(token), scopes },
      select: { name: true, prefix: true, scopes: true, createdAt: true },
    });
    return { ...row, scopes: row.scopes as TokenScope[], createdAt: row.createdAt.toISOString(), token };
  } catch (error) {
    // Names stay taken after revocation, so that a name in a log always means one token.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      throw new TokenError(`a token named "${name}" already exists (revoked tokens keep their name); choose another name`);
    }
    throw error;
  }
}
