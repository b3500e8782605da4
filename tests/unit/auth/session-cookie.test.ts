import { createHash } from "node:crypto";

import { EncryptJWT } from "jose";
import { describe, expect, it } from "vitest";

import { openSession, openSignInState, sealSession, sealSignInState } from "@/lib/auth/session-cookie";

const SECRET = "a-session-secret-that-is-long-enough-1234";
const VIEWER = { subject: "user-1", email: "ada@example.com", name: "Ada" };

describe("session cookies", () => {
  it("open what they sealed, and hide it from the browser", async () => {
    const sealed = await sealSession(VIEWER, SECRET, 3600);
    expect(sealed).not.toContain("ada");
    expect(Buffer.from(sealed.split(".")[3] ?? "", "base64url").toString("latin1")).not.toContain("ada@example.com");
    expect(await openSession(sealed, SECRET)).toEqual({ ...VIEWER, via: "session" });
  });

  it("open nothing when forged, altered, sealed under another secret, expired or missing", async () => {
    const sealed = await sealSession(VIEWER, SECRET, 3600);
    const parts = sealed.split(".");
    const ciphertext = parts[3]!;
    const flipped = `${ciphertext[0] === "A" ? "B" : "A"}${ciphertext.slice(1)}`;
    expect(await openSession([...parts.slice(0, 3), flipped, parts[4]].join("."), SECRET)).toBeNull();
    expect(await openSession(sealed, `${SECRET}-other`)).toBeNull();
    expect(await openSession("eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.", SECRET)).toBeNull();
    expect(await openSession(undefined, SECRET)).toBeNull();
    // Sealed with the right key, but expired a minute ago.
    const key = createHash("sha256").update(`baton:session:${SECRET}`, "utf8").digest();
    const now = Math.floor(Date.now() / 1000);
    const expired = await new EncryptJWT({ sub: "user-1" })
      .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
      .setIssuedAt(now - 3600)
      .setExpirationTime(now - 60)
      .encrypt(key);
    expect(await openSession(expired, SECRET)).toBeNull();
    const fresh = await new EncryptJWT({ sub: "user-1" })
      .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .encrypt(key);
    expect(await openSession(fresh, SECRET)).toMatchObject({ subject: "user-1" });
  });

  it("keep the sign-in state apart from sessions", async () => {
    const state = { state: "s", nonce: "n", codeVerifier: "v", returnTo: "/violations" };
    const sealed = await sealSignInState(state, SECRET);
    expect(await openSignInState(sealed, SECRET)).toEqual(state);
    expect(await openSession(sealed, SECRET)).toBeNull();
    expect(await openSignInState(await sealSession(VIEWER, SECRET, 60), SECRET)).toBeNull();
  });
});
