// The imports of one TypeScript module, read from its text: what it imports, and whether only
// types. Statements are found where they start a line (as every import here does), so an
// "import" in a comment or a string is not taken for one.

export type ImportEdge = { specifier: string; isTypeOnly: boolean };

const STATIC_FROM = /^[ \t]*(import|export)\s+(type\s+)?([^;]*?)\s*from\s*["']([^"']+)["']/gm;
const SIDE_EFFECT = /^[ \t]*import\s*["']([^"']+)["']/gm;
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** `{ type A, type B }` imports only types; `{ type A, B }` does not. */
function isTypeOnlyClause(clause: string): boolean {
  const braces = clause.match(/^\{([\s\S]*)\}$/);
  if (!braces) return false;
  const names = braces[1]!
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  return names.length > 0 && names.every((name) => name.startsWith("type "));
}

export function readImports(text: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const match of text.matchAll(STATIC_FROM)) {
    const [, , typeKeyword, clause, specifier] = match;
    edges.push({ specifier: specifier!, isTypeOnly: Boolean(typeKeyword) || isTypeOnlyClause(clause!.trim()) });
  }
  for (const match of text.matchAll(SIDE_EFFECT)) edges.push({ specifier: match[1]!, isTypeOnly: false });
  for (const match of text.matchAll(DYNAMIC)) edges.push({ specifier: match[1]!, isTypeOnly: false });
  return edges;
}

/** A module marks itself server-only (`import "server-only"`) or client (`"use client"` first). */
export function readMarks(text: string): { isServerOnly: boolean; isClient: boolean } {
  return {
    isServerOnly: /^[ \t]*import\s*["']server-only["']/m.test(text),
    isClient: /^\s*["']use client["']/.test(text),
  };
}
