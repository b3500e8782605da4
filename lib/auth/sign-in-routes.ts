import "server-only";

import { NextResponse } from "next/server";

import type { AccessConfig } from "@/lib/auth/access-config";
import { safeReturnPath } from "@/lib/auth/access-rules";
import { beginSignIn, completeSignIn, SignInError } from "@/lib/auth/oidc";
import {
  cookieOptions,
  openSignInState,
  SESSION_COOKIE,
  SIGN_IN_STATE_COOKIE,
  SIGN_IN_STATE_MAX_AGE_SECONDS,
  sealSession,
  sealSignInState,
} from "@/lib/auth/session-cookie";

// The sign-in flow's three answers (app/(auth)/auth/*: outside /api, as browser redirects
// rather than JSON API): each returns a redirect, never an error page, and never puts a code, a
// token or a cookie value in a URL or a log line.

const STATE_COOKIE_PATH = "/auth";

/** A path on Baton as the browser knows it (BATON_PUBLIC_URL in sign-in mode). */
function siteUrl(access: AccessConfig, request: Request, pathAndQuery: string): URL {
  const base = access.method.mode === "oidc" ? access.method.publicUrl : new URL(request.url).origin;
  return new URL(pathAndQuery, `${base}/`);
}

function toSignInPage(access: AccessConfig, request: Request, query: Record<string, string>): NextResponse {
  const url = siteUrl(access, request, "/sign-in");
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  return NextResponse.redirect(url, 303);
}

/** GET /auth/sign-in?returnTo=/path: off to the provider. */
export async function startSignIn(request: Request, access: AccessConfig): Promise<NextResponse> {
  if (access.method.mode !== "oidc") return toSignInPage(access, request, {});
  const returnTo = safeReturnPath(new URL(request.url).searchParams.get("returnTo"));
  let begun: Awaited<ReturnType<typeof beginSignIn>>;
  try {
    begun = await beginSignIn(access.method, returnTo);
  } catch (error) {
    console.error(`[baton] the OpenID provider ${access.method.issuer} cannot be reached: ${(error as Error).message}`);
    return toSignInPage(access, request, { error: "provider_unavailable" });
  }
  const response = NextResponse.redirect(begun.url, 303);
  response.cookies.set(
    SIGN_IN_STATE_COOKIE,
    await sealSignInState(begun.state, access.sessionSecret!),
    cookieOptions(access.method.publicUrl, SIGN_IN_STATE_MAX_AGE_SECONDS, STATE_COOKIE_PATH),
  );
  return response;
}

/** GET /auth/callback?code=...&state=...: the provider's answer, made a session. */
export async function finishSignIn(request: Request, access: AccessConfig, stateCookie: string | undefined): Promise<NextResponse> {
  if (access.method.mode !== "oidc") return toSignInPage(access, request, {});
  const state = await openSignInState(stateCookie, access.sessionSecret!);
  if (!state) return toSignInPage(access, request, { error: "sign_in_expired" });
  let response: NextResponse;
  try {
    const viewer = await completeSignIn(access.method, new URL(request.url).search, state);
    // Checked again: a state sealed before the rule last tightened must not take anyone off Baton.
    response = NextResponse.redirect(siteUrl(access, request, safeReturnPath(state.returnTo)), 303);
    response.cookies.set(
      SESSION_COOKIE,
      await sealSession(viewer, access.sessionSecret!, access.sessionMaxAgeSeconds),
      cookieOptions(access.method.publicUrl, access.sessionMaxAgeSeconds),
    );
  } catch (error) {
    if (!(error instanceof SignInError)) throw error;
    response = toSignInPage(access, request, { error: error.code });
  }
  response.cookies.set(SIGN_IN_STATE_COOKIE, "", cookieOptions(access.method.publicUrl, 0, STATE_COOKIE_PATH));
  return response;
}

/** POST /auth/sign-out: the session cookie is cleared; back to the sign-in page. */
export function signOut(request: Request, access: AccessConfig): NextResponse {
  const response = toSignInPage(access, request, { signedOut: "1" });
  response.cookies.set(SESSION_COOKIE, "", cookieOptions(access.method.mode === "oidc" ? access.method.publicUrl : null, 0));
  return response;
}
