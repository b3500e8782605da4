import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { describe, expect, it } from "vitest";

// JVM and Node workers of one service count together only while both run the same enter and
// exit scripts on the same keys. Each client holds its own copy of the scripts; this keeps them
// equal.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const typescript = readFileSync(path.join(root, "lib/exclusivity-client/redis-counter.ts"), "utf8");
const java = readFileSync(path.join(root, "clients/java/src/main/java/dev/baton/exclusivity/RedisCounter.java"), "utf8");

/** A Java text block's content as the compiler makes it: the common indentation of its lines removed. */
function textBlock(body: string): string {
  const lines = body.split("\n").slice(1);
  const indent = Math.min(...lines.filter((line) => line.trim().length > 0).map((line) => line.length - line.trimStart().length));
  return lines.map((line) => line.slice(indent)).join("\n");
}

function match(text: string, pattern: RegExp, what: string): string {
  const found = pattern.exec(text);
  if (!found) throw new Error(`${what} not found`);
  return found[1]!;
}

describe("the Java client's Redis scripts", () => {
  it("enter exactly as the TypeScript client's", () => {
    const ts = match(typescript, /const ENTER_SCRIPT = `([\s\S]*?)`;/, "ENTER_SCRIPT in redis-counter.ts");
    const jv = textBlock(match(java, /ENTER_SCRIPT = """([\s\S]*?)""";/, "ENTER_SCRIPT in RedisCounter.java"));
    expect(jv).toBe(ts);
  });

  it("exit exactly as the TypeScript client's, on the same key suffix", () => {
    expect(match(java, /EXIT_SCRIPT = "(.*)";/, "EXIT_SCRIPT in RedisCounter.java")).toBe(
      match(typescript, /const EXIT_SCRIPT = `(.*)`;/, "EXIT_SCRIPT in redis-counter.ts"),
    );
    expect(match(java, /INSIDE_KEY_SUFFIX = "(.*)";/, "INSIDE_KEY_SUFFIX in RedisCounter.java")).toBe(
      match(typescript, /INSIDE_KEY_SUFFIX = "(.*)";/, "INSIDE_KEY_SUFFIX in redis-counter.ts"),
    );
    const counterBackend = readFileSync(path.join(root, "lib/exclusivity-client/counter-backend.ts"), "utf8");
    expect(match(java, /MAX_OTHERS_INSIDE = (\d+);/, "MAX_OTHERS_INSIDE in RedisCounter.java")).toBe(
      match(counterBackend, /MAX_OTHERS_INSIDE = (\d+);/, "MAX_OTHERS_INSIDE in counter-backend.ts"),
    );
  });
});
