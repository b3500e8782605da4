import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { describe, expect, it } from "vitest";

import { BATCH_SCRIPT, OPS_PER_CALL } from "@/lib/exclusivity-client/redis-counter";

// JVM and Node workers of one service count together only while both run the same enter and
// exit scripts on the same keys. Each client holds its own copy of the scripts, and builds its
// batch script (many enters and exits per call) from them; this keeps them equal.

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

/** A Java string literal's value (the escapes the scripts use). */
function javaString(literal: string): string {
  return literal.replace(/\\(.)/g, (_, escaped: string) => ({ n: "\n", t: "\t" })[escaped] ?? escaped);
}

/**
 * The value of the Java constant `name`, whose initializer joins string literals, text blocks and
 * other constants with `+` and `.replace(a, b)` (Java's replaces every occurrence): enough of Java
 * for BATCH_SCRIPT, which is built from ENTER_SCRIPT and EXIT_SCRIPT.
 */
function javaConstant(source: string, name: string): string {
  const start = source.indexOf(`${name} = `);
  if (start < 0) throw new Error(`${name} not found in RedisCounter.java`);
  const tokenPattern = /\s*("""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"|[A-Za-z_]\w*|[+.(),;])/y;
  tokenPattern.lastIndex = start + name.length + 3;
  const next = (): string => {
    const token = tokenPattern.exec(source);
    if (!token) throw new Error(`cannot read ${name} at offset ${tokenPattern.lastIndex}`);
    return token[1]!;
  };
  const expectToken = (wanted: string) => {
    const token = next();
    if (token !== wanted) throw new Error(`${name}: expected ${wanted}, found ${token}`);
  };
  const primary = (token: string): string => {
    if (token.startsWith('"""')) return textBlock(token.slice(3, -3));
    if (token.startsWith('"')) return javaString(token.slice(1, -1));
    if (/^[A-Z_]+$/.test(token)) return javaConstant(source, token);
    throw new Error(`${name}: unexpected ${token}`);
  };
  let value = "";
  let token = "+";
  while (token === "+") {
    let term = primary(next());
    for (token = next(); token === "."; token = next()) {
      expectToken("replace");
      expectToken("(");
      const from = primary(next());
      expectToken(",");
      const to = primary(next());
      expectToken(")");
      term = term.replaceAll(from, to);
    }
    value += term;
  }
  if (token !== ";") throw new Error(`${name}: unexpected ${token}`);
  return value;
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

  it("batch exactly as the TypeScript client's, with as many operations per call", () => {
    const jv = javaConstant(java, "BATCH_SCRIPT");
    // The Java text is really built from the enter script (not a string that merely matches).
    expect(jv).toContain("local function enter(key, entryId, worker, ttlArg, maxOthersArg)\nlocal time = redis.call('TIME')");
    expect(jv).toBe(BATCH_SCRIPT);
    expect(Number(match(java, /OPS_PER_CALL = ([\d_]+);/, "OPS_PER_CALL in RedisCounter.java").replaceAll("_", ""))).toBe(OPS_PER_CALL);
  });
});
