import "server-only";

import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { displayPrefix, generateToken, hashToken, isValidTokenName, TOKEN_NAME_RULE } from "@/lib/auth/token-format";
import { TokenError } from "@/lib/auth/token-error";

export type CreatedApiToken = { name: string; prefix: string; createdAt: string; /** Shown once; only its hash is stored. */ token: string };

/** Creates a token under a unique name. Throws TokenError for a bad or taken name. */
export async function createApiToken(db: Db, name: string): Promise<CreatedApiToken> {
  if (!isValidTokenName(name)) throw new TokenError(`invalid token name "${name}": use ${TOKEN_NAME_RULE}`);
  const token = generateToken();
  try {
    const row = await db.apiToken.create({
      data: { name, tokenHash: hashToken(token), prefix: displayPrefix(token) },
      select: { name: true, prefix: true, createdAt: true },
    });
    return { ...row, createdAt: row.createdAt.toISOString(), token };
  } catch (error) {
    // Names stay taken after revocation, so that a name in a log always means one token.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      throw new TokenError(`a token named "${name}" already exists (revoked tokens keep their name); choose another name`);
    }
    throw error;
  }
}
