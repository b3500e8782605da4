import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

// The relative links of the project's Markdown (README.md, docs/**/*.md): each must name a file
// that exists and, with a #fragment, a heading of that file; every ``` fence must close.

export type MarkdownProblem = { file: string; line: number; message: string };

const FENCE = /^ {0,3}(`{3,})(.*)$/;
const LINK = /!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/** Lines outside fenced code, with their 1-based numbers, and the fence problems found. */
function readProse(file: string, text: string): { prose: Array<{ line: number; text: string }>; problems: MarkdownProblem[] } {
  const prose: Array<{ line: number; text: string }> = [];
  const problems: MarkdownProblem[] = [];
  let openedAt: number | null = null;
  text.split("\n").forEach((lineText, index) => {
    const fence = FENCE.exec(lineText);
    if (fence && openedAt === null) {
      openedAt = index + 1;
    } else if (fence && fence[2]!.trim() === "") {
      openedAt = null;
    } else if (fence) {
      problems.push({
        file,
        line: openedAt!,
        message: `the \`\`\` fence opened here is not closed before the fence "${lineText.trim()}" on line ${index + 1}`,
      });
      openedAt = index + 1;
    } else if (openedAt === null) {
      prose.push({ line: index + 1, text: lineText });
    }
  });
  if (openedAt !== null) problems.push({ file, line: openedAt, message: "the ``` fence opened here is never closed" });
  return { prose, problems };
}

/** GitHub's anchor for a heading: lower case, inline markup and punctuation dropped, spaces as '-'. */
export function slugOfHeading(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/ /g, "-");
}

/** Every anchor a Markdown text has: its headings' slugs, a repeated one suffixed -1, -2, ... */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: line } of readProse("", text).prose) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = slugOfHeading(heading[1]!);
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

/** The problems of one Markdown file; `readText` reads a linked Markdown file (for its headings). */
export function checkMarkdown(
  file: string,
  text: string,
  root: string,
  readText: (file: string) => string = (f) => readFileSync(f, "utf8"),
): MarkdownProblem[] {
  const { prose, problems } = readProse(file, text);
  for (const { line, text: lineText } of prose) {
    const withoutCode = lineText.replace(/`[^`]*`/g, "");
    for (const match of withoutCode.matchAll(LINK)) {
      const target = match[1]!;
      if (EXTERNAL.test(target)) continue;
      const [pathPart, fragment] = target.split("#", 2) as [string, string | undefined];
      if (pathPart === "") {
        if (fragment !== undefined && !anchorsOf(text).has(fragment))
          problems.push({ file, line, message: `links to ${target}: ${file} has no heading #${fragment}` });
        continue;
      }
      const resolved = path.resolve(path.dirname(path.join(root, file)), decodeURIComponent(pathPart));
      if (!existsSync(resolved)) {
        problems.push({ file, line, message: `links to ${target}: ${path.relative(root, resolved)} does not exist` });
        continue;
      }
      if (fragment === undefined || !resolved.endsWith(".md") || statSync(resolved).isDirectory()) continue;
      if (!anchorsOf(readText(resolved)).has(fragment))
        problems.push({ file, line, message: `links to ${target}: ${path.relative(root, resolved)} has no heading #${fragment}` });
    }
  }
  return problems;
}

/** README.md and every Markdown file under docs/, relative to the project root. */
export function listProjectMarkdown(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) return walk(relative);
      return entry.name.endsWith(".md") ? [relative] : [];
    });
  return ["README.md", ...walk("docs")];
}
