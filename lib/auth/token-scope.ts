// What an API token may do. Client-safe (no server imports): the CLI and tests share it.

export const TOKEN_SCOPES = ["ingest", "read"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export const TOKEN_SCOPE_RULE = '"ingest", "read" or "ingest,read"';

/** "ingest", "read", "ingest,read" (any order, no repeats) as a sorted list, or null. */
export function parseTokenScopes(text: string): TokenScope[] | null {
  const items = text.split(",").map((item) => item.trim());
  if (items.some((item) => !(TOKEN_SCOPES as readonly string[]).includes(item))) return null;
  if (new Set(items).size !== items.length) return null;
  return TOKEN_SCOPES.filter((scope) => items.includes(scope));
}
