import "server-only";

import { createHash } from "node:crypto";

import { EncryptJWT, jwtDecrypt } from "jose";

// Sessions and the sign-in state live in cookies sealed with AES-256-GCM (a JWE, "dir"), under
// a key derived from BATON_SESSION_SECRET: the browser can neither read nor forge them, and
// Baton keeps no session table. A cookie is only as good as its `exp`: an expired one opens nothing.

export const SESSION_COOKIE = "baton_session";
export const SIGN_IN_STATE_COOKIE = "baton_sign_in";

export type Viewer = { subject: string; email: string | null; name: string | null; via: "session" | "proxy" | "token" | "open" };

export type SignInState = { state: string; nonce: string; codeVerifier: string; returnTo: string };

/** Separate keys for separate purposes, so a sign-in state cookie can never pass as a session. */
function keyFor(secret: string, purpose: "session" | "sign-in"): Uint8Array {
  return createHash("sha256").update(`baton:${purpose}:${secret}`, "utf8").digest();
}

async function seal(payload: Record<string, unknown>, key: Uint8Array, maxAgeSeconds: number): Promise<string> {
  return new EncryptJWT(payload).setProtectedHeader({ alg: "dir", enc: "A256GCM" }).setIssuedAt().setExpirationTime(`${maxAgeSeconds}s`).encrypt(key);
}

async function unseal(value: string, key: Uint8Array): Promise<Record<string, unknown> | null> {
  try {
    const { payload } = await jwtDecrypt(value, key, { keyManagementAlgorithms: ["dir"], contentEncryptionAlgorithms: ["A256GCM"] });
    return payload;
  } catch {
    // Forged, expired, sealed under another secret or garbage: all mean "no session". Nothing is
    // logged: the value is the client's, and a log line must never carry a cookie.
    return null;
  }
}

export function sealSession(viewer: Omit<Viewer, "via">, secret: string, maxAgeSeconds: number): Promise<string> {
  return seal({ sub: viewer.subject, email: viewer.email, name: viewer.name }, keyFor(secret, "session"), maxAgeSeconds);
}

export async function openSession(value: string | undefined, secret: string): Promise<Viewer | null> {
  if (!value) return null;
  const payload = await unseal(value, keyFor(secret, "session"));
  if (!payload || typeof payload.sub !== "string") return null;
  return {
    subject: payload.sub,
    email: typeof payload.email === "string" ? payload.email : null,
    name: typeof payload.name === "string" ? payload.name : null,
    via: "session",
  };
}

/** The sign-in state lives ten minutes: long enough to type a password, short enough to go stale. */
export const SIGN_IN_STATE_MAX_AGE_SECONDS = 600;

export function sealSignInState(state: SignInState, secret: string): Promise<string> {
  return seal({ ...state }, keyFor(secret, "sign-in"), SIGN_IN_STATE_MAX_AGE_SECONDS);
}

export async function openSignInState(value: string | undefined, secret: string): Promise<SignInState | null> {
  if (!value) return null;
  const payload = await unseal(value, keyFor(secret, "sign-in"));
  if (!payload) return null;
  const { state, nonce, codeVerifier, returnTo } = payload;
  if (typeof state !== "string" || typeof nonce !== "string" || typeof codeVerifier !== "string" || typeof returnTo !== "string") return null;
  return { state, nonce, codeVerifier, returnTo };
}

/** Cookie attributes: http-only, SameSite=Lax (the provider's redirect back is a top-level GET), Secure on https. */
export function cookieOptions(publicUrl: string | null, maxAgeSeconds: number, path = "/") {
  return { httpOnly: true, sameSite: "lax" as const, secure: publicUrl?.startsWith("https://") ?? false, path, maxAge: maxAgeSeconds };
}
