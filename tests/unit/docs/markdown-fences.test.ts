import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

import { describe, expect, it } from "vitest";

// Every code fence in the project's Markdown closes. One that does not turns the rest of the page
// inside out on GitHub (README.md once rendered its whole etcd section as one code block).

type Fence = { line: number; marker: string };

/**
 * The first fence that does not close, CommonMark's way: a fence opens with 3+ backticks or tildes
 * (and may carry an info string); it closes with the same character, at least as many, and
 * nothing else on the line. An opening fence with an info string (```sh) inside a block is taken
 * as the sign that the block above it never closed: CommonMark would render it as text, and the
 * page from there on inside out. None of these pages shows a fence inside a code block.
 */
function findUnclosedFence(text: string): Fence | null {
  let open: Fence | null = null;
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const match = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(lines[index]!);
    if (!match) continue;
    const marker = match[1]!;
    const info = match[2]!.trim();
    if (open === null) open = { line: index + 1, marker };
    else if (marker[0] !== open.marker[0] || marker.length < open.marker.length) continue;
    else if (info === "") open = null;
    else return open;
  }
  return open;
}

const ROOT = path.resolve(__dirname, "../../..");
const MARKDOWN = [
  "README.md",
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
  "tools/pulsar/README.md",
];

describe("Markdown code fences", () => {
  it("finds a fence that never closes, and accepts closed ones", () => {
    expect(findUnclosedFence("a\n```sh\nnpm start\n\n### etcd\n```sh\nx\n```\n")).toEqual({ line: 2, marker: "```" });
    expect(findUnclosedFence("```json\n{}\n```\n```sh\nx\n")).toEqual({ line: 4, marker: "```" });
    expect(findUnclosedFence("```sh\nx\n```\n~~~~\n```\n~~~~\n")).toBeNull();
  });

  it.each(MARKDOWN)("%s: every fence closes", (file) => {
    expect(findUnclosedFence(readFileSync(path.join(ROOT, file), "utf8"))).toBeNull();
  });
});
