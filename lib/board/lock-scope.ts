// What a lock cluster's configured scope says about one lock: its pattern's layout and whether
// it must always be held (a leader election). Pure and client-safe.

export type LockPatternScope = { match: string; layout: string | null; mustBeHeld: boolean };

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** Redis-style glob (`*`, `?`, `[abc]`, `\x`) as an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === "*") source += ".*";
    else if (ch === "?") source += ".";
    else if (ch === "\\" && i + 1 < glob.length) source += escapeRegExp(glob[++i]!);
    else if (ch === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end < 0) source += "\\[";
      else {
        const body = glob.slice(i + 1, end).replace(/\\/g, "\\\\");
        source += `[${body.startsWith("^") ? `^${body.slice(1)}` : body}]`;
        i = end;
      }
    } else source += escapeRegExp(ch);
  }
  return new RegExp(`^${source}$`, "s");
}

/** The scope's patterns, read tolerantly: `{ patterns: [{ match, layout?, mustBeHeld? }] }`. */
export function readLockPatterns(scope: unknown): LockPatternScope[] {
  const patterns = scope !== null && typeof scope === "object" ? (scope as { patterns?: unknown }).patterns : undefined;
  if (!Array.isArray(patterns)) return [];
  return patterns.flatMap((p): LockPatternScope[] => {
    if (p === null || typeof p !== "object" || typeof (p as { match?: unknown }).match !== "string") return [];
    const entry = p as { match: string; layout?: unknown; mustBeHeld?: unknown };
    return [{ match: entry.match, layout: typeof entry.layout === "string" ? entry.layout : null, mustBeHeld: entry.mustBeHeld === true }];
  });
}

/** The scope entry of a lock: the one its stored pattern names, else the first whose glob matches its key. */
export function findPatternScope(patterns: LockPatternScope[], pattern: string, key: string): LockPatternScope | null {
  return patterns.find((p) => p.match === pattern) ?? patterns.find((p) => globToRegExp(p.match).test(key)) ?? null;
}
