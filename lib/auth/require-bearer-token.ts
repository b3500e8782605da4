import "server-only";

import { getDb, type Db } from "@/lib/db/client";
import type { TokenScope } from "@/lib/auth/token-scope";
import { type AuthenticatedToken, verifyApiToken } from "@/lib/auth/verify-api-token";
import { ApiError } from "@/lib/http/api-error";
import { DatabaseUnavailableError } from "@/lib/ingest/database-unavailable-error";

function unauthorized(code: string, message: string, challenge: string): ApiError {
  return new ApiError(401, code, message, undefined, { "WWW-Authenticate": challenge });
}

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * The token of a request, or a 401 (with a WWW-Authenticate challenge) when it is missing,
 * malformed, unknown, revoked or without `scope` (ingest routes ask for "ingest", the default). Call it before reading the body: a refused request
 * is never read and writes nothing.
 */
export async function requireBearerToken(request: Request, db: Db = getDb(), scope: TokenScope = "ingest"): Promise<AuthenticatedToken> {
  const header = request.headers.get("authorization");
  if (header === null) {
    throw unauthorized(
      "missing_token",
      "This endpoint needs a bearer token: send `Authorization: Bearer bat_...` (create one with npm run token:create).",
      'Bearer realm="baton"',
    );
  }
  const match = BEARER.exec(header);
  if (!match) throw unauthorized("invalid_token", "The Authorization header must be `Bearer <token>`.", 'Bearer realm="baton", error="invalid_request"');
  let verified: AuthenticatedToken | null;
  try {
    verified = await verifyApiToken(db, match[1]!, scope);
  } catch (error) {
    console.error("[baton] verifying a bearer token failed:", error);
    throw new DatabaseUnavailableError(error);
  }
  if (!verified)
    throw unauthorized("invalid_token", `The bearer token is unknown, revoked or has no "${scope}" scope.`, 'Bearer realm="baton", error="invalid_token"');
  return verified;
}
