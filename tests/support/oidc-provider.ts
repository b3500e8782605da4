import type { Server } from "node:http";

import Provider from "oidc-provider";

import { findFreePort } from "@/tools/free-port";

// A real OpenID provider for the access-control tests: oidc-provider (a certified
// implementation) with its development login page, where any login and password sign in. The
// login is the account id; its e-mail is the login when it has an "@", else login@example.com.

export type TestOidcProvider = { issuer: string; clientId: string; clientSecret: string; stop(): Promise<void> };

export async function startOidcProvider(options: { redirectUris: string[] }): Promise<TestOidcProvider> {
  const port = await findFreePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = "baton-e2e";
  const clientSecret = "baton-e2e-client-secret-0123456789";
  const provider = new Provider(issuer, {
    clients: [
      { client_id: clientId, client_secret: clientSecret, redirect_uris: options.redirectUris, grant_types: ["authorization_code"], response_types: ["code"] },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    pkce: { required: () => true },
    cookies: { keys: ["baton-e2e-provider-cookie-key"] },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx, id) {
      const email = id.includes("@") ? id : `${id}@example.com`;
      return { accountId: id, claims: async () => ({ sub: id, email, email_verified: true, name: id }) };
    },
  });
  const server: Server = await new Promise((resolve) => {
    const listening = provider.listen(port, "127.0.0.1", () => resolve(listening));
  });
  return {
    issuer,
    clientId,
    clientSecret,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
