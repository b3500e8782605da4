import { describe, expect, it } from "vitest";

import { displayPrefix, generateToken, hashToken, isValidTokenName, isWellFormedToken } from "@/lib/auth/token-format";

describe("token format", () => {
  it("generates bat_ tokens of 32 random bytes, each different", () => {
    const tokens = new Set(Array.from({ length: 100 }, generateToken));
    expect(tokens.size).toBe(100);
    for (const token of tokens) {
      expect(token).toMatch(/^bat_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token.slice(4), "base64url")).toHaveLength(32);
      expect(isWellFormedToken(token)).toBe(true);
    }
  });

  it("hashes with sha256 hex and shows only a short prefix", () => {
    expect(hashToken("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(displayPrefix("bat_ABCDEFGHIJKLMNOP")).toBe("bat_ABCDEFGH");
  });

  it.each(["", "bat_", "bat_short", `xyz_${"a".repeat(43)}`, `bat_${"a".repeat(42)}!`, `bat_${"a".repeat(44)}`])("refuses the malformed token %j", (token) => {
    expect(isWellFormedToken(token)).toBe(false);
  });

  it.each([
    ["ci", true],
    ["deploy-bot.prod_2", true],
    ["", false],
    ["-leading-dash", false],
    ["has space", false],
    ["x".repeat(65), false],
  ])("name %j valid: %s", (name, isValid) => {
    expect(isValidTokenName(name)).toBe(isValid);
  });
});
