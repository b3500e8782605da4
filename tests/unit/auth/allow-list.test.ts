import { describe, expect, it } from "vitest";

import { isAllowedUser } from "@/lib/auth/allow-list";
import { isTrustedAddress } from "@/lib/auth/trusted-proxy";
import { parseTokenScopes } from "@/lib/auth/token-scope";

const BY_DOMAIN = { allowedDomains: ["example.com"], allowedGroups: [], groupsClaim: "groups" };
const BY_GROUP = { allowedDomains: [], allowedGroups: ["baton-users"], groupsClaim: "roles" };

describe("the sign-in allow-list", () => {
  it.each([
    [BY_DOMAIN, { email: "ada@example.com" }, true],
    [BY_DOMAIN, { email: "Ada@EXAMPLE.com", email_verified: true }, true],
    [BY_DOMAIN, { email: "ada@example.com", email_verified: false }, false],
    [BY_DOMAIN, { email: "ada@evil-example.com" }, false],
    [BY_DOMAIN, { email: "ada@example.com.evil.org" }, false],
    [BY_DOMAIN, { email: "example.com" }, false],
    [BY_DOMAIN, {}, false],
    [{ ...BY_DOMAIN, allowedDomains: ["*"] }, { email: "anyone@anywhere.org" }, true],
    [BY_GROUP, { roles: ["viewers", "baton-users"] }, true],
    [BY_GROUP, { roles: "baton-users" }, true],
    [BY_GROUP, { roles: ["viewers"] }, false],
    [BY_GROUP, { groups: ["baton-users"] }, false],
  ])("%o lets %o in: %s", (config, claims, expected) => {
    expect(isAllowedUser(claims, config)).toBe(expected);
  });
});

describe("trusted proxy addresses", () => {
  it.each([
    ["10.0.0.5", ["10.0.0.5"], true],
    ["::ffff:10.0.0.5", ["10.0.0.5"], true],
    ["10.0.0.6", ["10.0.0.5"], false],
    ["192.168.4.20", ["192.168.0.0/16"], true],
    ["192.169.0.1", ["192.168.0.0/16"], false],
    ["::1", ["::1"], true],
    ["127.0.0.1", ["::1"], false],
    ["", ["10.0.0.5"], false],
    ["not-an-address", ["10.0.0.5"], false],
  ])("%s in %o: %s", (address, trusted, expected) => {
    expect(isTrustedAddress(address, trusted)).toBe(expected);
  });
});

describe("token scopes", () => {
  it("parse ingest, read or both, and nothing else", () => {
    expect(parseTokenScopes("ingest")).toEqual(["ingest"]);
    expect(parseTokenScopes("read")).toEqual(["read"]);
    expect(parseTokenScopes("read,ingest")).toEqual(["ingest", "read"]);
    for (const bad of ["", "admin", "read,read", "read,,ingest", "READ"]) expect(parseTokenScopes(bad)).toBeNull();
  });
});
