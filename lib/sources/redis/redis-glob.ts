// Redis glob patterns (SCAN MATCH, PSUBSCRIBE, KEYS syntax): `*`, `?`, `[abc]`, `[^a]`, `[a-z]`
// and `\x` for a literal x. Read here once, so discovery, the watcher and the config agree.

type GlobToken = { kind: "literal"; text: string } | { kind: "any" } | { kind: "one" } | { kind: "class"; source: string };

function tokenize(glob: string): GlobToken[] {
  const tokens: GlobToken[] = [];
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index]!;
    if (char === "\\" && index + 1 < glob.length) {
      tokens.push({ kind: "literal", text: glob[++index]! });
    } else if (char === "*") {
      tokens.push({ kind: "any" });
    } else if (char === "?") {
      tokens.push({ kind: "one" });
    } else if (char === "[") {
      const end = glob.indexOf("]", index + 2);
      // Redis treats an unclosed `[` as running to the end of the pattern; a literal is the
      // conservative reading for our purposes (prefix and regex), and such keys are rare.
      if (end === -1) tokens.push({ kind: "literal", text: char });
      else {
        tokens.push({ kind: "class", source: glob.slice(index + 1, end) });
        index = end;
      }
    } else {
      tokens.push({ kind: "literal", text: char });
    }
  }
  return tokens;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

function classToRegex(source: string): string {
  const negated = source.startsWith("^");
  const body = (negated ? source.slice(1) : source).replace(/\\(.)/g, (_, char: string) => escapeRegex(char)).replace(/[\]\\^]/g, "\\$&");
  return `[${negated ? "^" : ""}${body}]`;
}

/** A RegExp that accepts exactly the keys the glob matches. */
export function globToRegExp(glob: string): RegExp {
  const source = tokenize(glob)
    .map((token) => {
      switch (token.kind) {
        case "literal":
          return escapeRegex(token.text);
        case "any":
          return "[\\s\\S]*";
        case "one":
          return "[\\s\\S]";
        case "class":
          return classToRegex(token.source);
        default:
          throw new Error(`unknown glob token ${JSON.stringify(token satisfies never)}`);
      }
    })
    .join("");
  return new RegExp(`^${source}$`);
}

/** The literal text every matching key starts with ("" when the glob starts with a wildcard). */
export function literalPrefix(glob: string): string {
  let prefix = "";
  for (const token of tokenize(glob)) {
    if (token.kind !== "literal") break;
    prefix += token.text;
  }
  return prefix;
}

export function hasGlobCharacters(glob: string): boolean {
  return tokenize(glob).some((token) => token.kind !== "literal");
}

/** The key a glob without wildcards names, escapes resolved (`lock\*` names "lock*"). */
export function literalKey(glob: string): string {
  return tokenize(glob)
    .map((token) => (token.kind === "literal" ? token.text : ""))
    .join("");
}

/** True for globs with no literal character at all (`*`, `?*`, `[a-z]*`): they match any key. */
export function isMatchEverything(glob: string): boolean {
  return tokenize(glob).every((token) => token.kind !== "literal");
}
