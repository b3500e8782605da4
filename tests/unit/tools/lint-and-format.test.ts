import { spawnSync } from "node:child_process";
import path from "node:path";

import { describe, expect, it } from "vitest";

// Biome's lint rules and formatter (biome.jsonc), as `npm run lint` runs them: what `npm test` checks.
const BIOME = path.join(process.cwd(), "node_modules", "@biomejs", "biome", "bin", "biome");

function runBiome(args: string[], input?: string): { status: number | null; stdout: string; output: string } {
  const result = spawnSync(process.execPath, [BIOME, ...args], { cwd: process.cwd(), input, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return { status: result.status, stdout: result.stdout, output: `${result.stdout}${result.stderr}` };
}

describe("Baton's sources", () => {
  it("pass every lint rule and are formatted (`npm run format` writes the format; each finding names its file, line and rule)", () => {
    const { status, output } = runBiome(["ci", "--error-on-warnings", "--max-diagnostics=50", "."]);
    expect(status, output).toBe(0);
  });

  it("are checked under Baton's settings: a loose comparison in lib/ is a finding Biome would fix, and an unformatted line would be rewritten", () => {
    // With stdin Biome prints the file as fixed instead of its findings: the fix shows the rule is in force for lib/.
    const lint = runBiome(
      ["lint", "--write", "--unsafe", "--stdin-file-path=lib/example.ts"],
      "export function isOne(value: number) {\n  return value == 1;\n}\n",
    );
    expect(lint.stdout).toBe("export function isOne(value: number) {\n  return value === 1;\n}\n");
    const format = runBiome(["format", "--stdin-file-path=lib/example.ts"], "export const words = ['a','b']\n");
    expect(format.stdout).toBe('export const words = ["a", "b"];\n');
  });
});
