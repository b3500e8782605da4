import "server-only";

import { createHash, randomBytes } from "node:crypto";

// Tokens look like `bat_` + 43 base64url characters (32 random bytes): the prefix makes a
// leaked token recognisable to secret scanners and to people.
export const TOKEN_PREFIX = "bat_";
const TOKEN_RANDOM_BYTES = 32;
const TOKEN_PATTERN = /^bat_[A-Za-z0-9_-]{43}$/;
/** How much of a token is stored in clear to recognise it in a list: `bat_` and 8 characters. */
const DISPLAY_PREFIX_LENGTH = TOKEN_PREFIX.length + 8;

export function generateToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(TOKEN_RANDOM_BYTES).toString("base64url")}`;
}

/** What the database stores: sha256 of the token, hex. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export function displayPrefix(token: string): string {
  return token.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** Cheap shape check, so that garbage never reaches the database. */
export function isWellFormedToken(token: string): boolean {
  return TOKEN_PATTERN.test(token);
}

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function isValidTokenName(name: string): boolean {
  return NAME_PATTERN.test(name);
}

export const TOKEN_NAME_RULE = "1-64 letters, digits, '.', '_' or '-', starting with a letter or digit";
