import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { afterAll, describe, expect, it } from "vitest";

import { anchorsOf, checkMarkdown, listProjectMarkdown, slugOfHeading } from "@/tools/docs/markdown-links";

const ROOT = process.cwd();

describe("README.md and docs/**/*.md", () => {
  it.each(listProjectMarkdown(ROOT))("%s: every relative link and image resolves, every fence closes", (file) => {
    const problems = checkMarkdown(file, readFileSync(path.join(ROOT, file), "utf8"), ROOT);
    expect(problems.map((p) => `${p.file}:${p.line}: ${p.message}`)).toEqual([]);
  });
});

describe("checkMarkdown", () => {
  const scratch = mkdtempSync(path.join(tmpdir(), "baton-links-"));
  mkdirSync(path.join(scratch, "docs"));
  writeFileSync(path.join(scratch, "docs", "guide.md"), "# Guide\n\n## `GET /api/health`\n\n## Scale: 10,000 partition-subscriptions\n");
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const check = (text: string) => checkMarkdown("README.md", text, scratch).map((p) => p.message);

  it("accepts links to files and headings that exist, and ignores links inside code", () => {
    expect(
      check(
        "[a](docs/guide.md) [b](docs/guide.md#get-apihealth) [c](docs/guide.md#scale-10000-partition-subscriptions) [d](#top)\n\n# Top\n`[x](nowhere.md)`\n",
      ),
    ).toEqual([]);
  });

  it("reports a link to a missing file, an image that is missing and a missing heading", () => {
    expect(check("[a](docs/gone.md)\n![s](docs/screenshots/none.png)\n[b](docs/guide.md#nothing)\n[c](#nowhere)\n")).toEqual([
      "links to docs/gone.md: docs/gone.md does not exist",
      "links to docs/screenshots/none.png: docs/screenshots/none.png does not exist",
      "links to docs/guide.md#nothing: docs/guide.md has no heading #nothing",
      "links to #nowhere: README.md has no heading #nowhere",
    ]);
  });

  it("reports a fence that never closes, and one that another fence with a language interrupts", () => {
    expect(check("```sh\nnpm start\n")).toEqual(["the ``` fence opened here is never closed"]);
    expect(check("```sh\nnpm start\n\n```json\n{}\n```\n")).toEqual(['the ``` fence opened here is not closed before the fence "```json" on line 4']);
  });

  it("reads headings the way GitHub makes anchors, repeated ones numbered", () => {
    expect(slugOfHeading("Next in line: who takes over, and whether Baton was right")).toBe("next-in-line-who-takes-over-and-whether-baton-was-right");
    expect([...anchorsOf("# A\n## A\n```\n# not a heading\n```\n")]).toEqual(["a", "a-1"]);
  });
});
