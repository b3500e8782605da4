import "server-only";

import * as client from "openid-client";

import type { OidcAccessConfig } from "@/lib/auth/access-config";
import { isAllowedUser } from "@/lib/auth/allow-list";
import type { SignInState, Viewer } from "@/lib/auth/session-cookie";

// Sign-in with OpenID Connect through openid-client (authorization code flow, PKCE, state and
// nonce). Discovery happens once per process, on the first sign-in.

export const CALLBACK_PATH = "/auth/callback";

export class SignInError extends Error {
  override name = "SignInError";
  constructor(
    readonly code: "sign_in_expired" | "sign_in_failed" | "not_allowed",
    message: string,
  ) {
    super(message);
  }
}

let discovered: { issuer: string; configuration: Promise<client.Configuration> } | undefined;

function providerConfiguration(config: OidcAccessConfig): Promise<client.Configuration> {
  if (discovered?.issuer !== config.issuer) {
    // An http:// issuer is only accepted as configured (a provider on this machine, in tests).
    const options = config.issuer.startsWith("http://") ? { execute: [client.allowInsecureRequests] } : undefined;
    const configuration = client.discovery(new URL(config.issuer), config.clientId, config.clientSecret, undefined, options);
    // A failed discovery is retried on the next sign-in rather than remembered.
    configuration.catch(() => {
      discovered = undefined;
    });
    discovered = { issuer: config.issuer, configuration };
  }
  return discovered.configuration;
}

function redirectUri(config: OidcAccessConfig): string {
  return `${config.publicUrl}${CALLBACK_PATH}`;
}

/** The provider's authorization URL and the state to keep (sealed in a cookie) until the callback. */
export async function beginSignIn(config: OidcAccessConfig, returnTo: string): Promise<{ url: URL; state: SignInState }> {
  const configuration = await providerConfiguration(config);
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(configuration, {
    redirect_uri: redirectUri(config),
    scope: config.scopes,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  return { url, state: { state, nonce, codeVerifier, returnTo } };
}

/**
 * The signed-in user from the provider's redirect back (`search` is the callback's query), or a
 * SignInError. The claims come from the ID token and the userinfo endpoint.
 */
export async function completeSignIn(config: OidcAccessConfig, search: string, state: SignInState): Promise<Omit<Viewer, "via">> {
  const configuration = await providerConfiguration(config);
  let claims: Record<string, unknown>;
  try {
    const tokens = await client.authorizationCodeGrant(configuration, new URL(`${redirectUri(config)}${search}`), {
      pkceCodeVerifier: state.codeVerifier,
      expectedState: state.state,
      expectedNonce: state.nonce,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims()!;
    const userInfo = await client.fetchUserInfo(configuration, tokens.access_token, idClaims.sub);
    claims = { ...idClaims, ...userInfo };
  } catch (error) {
    // The message names the check that failed (state, nonce, signature...), never a token or code.
    console.error(`[baton] sign-in failed: ${(error as Error).message}`);
    throw new SignInError("sign_in_failed", "The sign-in could not be completed; try again.");
  }
  if (!isAllowedUser(claims, config)) {
    throw new SignInError("not_allowed", "Your account is not allowed to use Baton (its e-mail domain or groups are not on the allow-list).");
  }
  return {
    subject: String(claims.sub),
    email: typeof claims.email === "string" ? claims.email : null,
    name: typeof claims.name === "string" ? claims.name : typeof claims.preferred_username === "string" ? claims.preferred_username : null,
  };
}
