import "server-only";

import { z } from "zod";

import { ConfigError, describeValue, readConfigText } from "@/lib/config-files";
import { httpUrl, positiveInt } from "@/lib/sources/config-fields";

// The access-control settings (docs/access-control.md). lib/config.ts calls parseAccessConfig
// with the environment; nothing here reads process.env.

export type OidcAccessConfig = {
  mode: "oidc";
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Baton's own address as the browser sees it: the redirect URI is `${publicUrl}/auth/callback`. */
  publicUrl: string;
  scopes: string;
  /** Lower-case e-mail domains let in; "*" lets every user of the provider in. */
  allowedDomains: string[];
  /** Members of any of these groups (from `groupsClaim`) are let in. */
  allowedGroups: string[];
  groupsClaim: string;
};

export type ProxyAccessConfig = {
  mode: "proxy";
  /** Lower-case name of the header the proxy puts the user in. */
  userHeader: string;
  /** Addresses (or IPv4/IPv6 CIDR ranges) of the proxies the header is accepted from. */
  trustedProxies: string[];
};

export type AccessConfig = {
  method: { mode: "open" } | OidcAccessConfig | ProxyAccessConfig;
  /** Key material of the session cookie (sign-in) and of the sign-in state cookie. */
  sessionSecret: string | null;
  sessionMaxAgeSeconds: number;
};

const list = z.string().transform((value) =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== ""),
);

const ADDRESS_OR_CIDR = /^(\d{1,3}(\.\d{1,3}){3}|[0-9a-f:.]+)(\/\d{1,3})?$/i;

export const accessEnvSchema = z.object({
  BATON_ACCESS_CONTROL_REQUIRED: z.enum(["true", "false"], { message: 'must be "true" or "false"' }).default("false"),
  BATON_OIDC_ISSUER: httpUrl.optional(),
  BATON_OIDC_CLIENT_ID: z.string().min(1).optional(),
  BATON_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  BATON_OIDC_CLIENT_SECRET_FILE: z.string().min(1).optional(),
  BATON_OIDC_SCOPES: z
    .string()
    .regex(/^[\w.:/-]+( [\w.:/-]+)*$/, { message: "must be space-separated scopes" })
    .default("openid email profile"),
  BATON_OIDC_ALLOWED_DOMAINS: list.optional(),
  BATON_OIDC_ALLOWED_GROUPS: list.optional(),
  BATON_OIDC_GROUPS_CLAIM: z.string().min(1).default("groups"),
  BATON_PUBLIC_URL: httpUrl.optional(),
  BATON_SESSION_SECRET: z.string().min(32, { message: "must be at least 32 characters (e.g. openssl rand -base64 32)" }).optional(),
  BATON_SESSION_SECRET_FILE: z.string().min(1).optional(),
  BATON_SESSION_MAX_AGE_HOURS: positiveInt(1, 24 * 30).default(12),
  BATON_AUTH_PROXY_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/, { message: "must be a header name such as X-Forwarded-Email" })
    .optional(),
  BATON_AUTH_TRUSTED_PROXIES: list
    .pipe(
      z.array(z.string().regex(ADDRESS_OR_CIDR, { message: "must list IP addresses or CIDR ranges" })).min(1, { message: "must list at least one address" }),
    )
    .optional(),
});

/** Variables whose values an error never repeats. */
const SECRET_VARIABLES = new Set(["BATON_OIDC_CLIENT_SECRET", "BATON_SESSION_SECRET"]);

function invalid(message: string): ConfigError {
  return new ConfigError(`Invalid configuration: ${message}`);
}

function secretFrom(vars: Record<string, string | undefined>, variable: string): string | undefined {
  const inline = vars[variable];
  const file = vars[`${variable}_FILE`];
  if (inline && file) throw invalid(`set ${variable} or ${variable}_FILE, not both`);
  if (file) return readConfigText(`${variable}_FILE`, file).trim();
  return inline;
}

/** The access settings from the environment (empty variables already dropped). */
export function parseAccessConfig(env: Record<string, string | undefined>): AccessConfig {
  const parsed = accessEnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0]);
    const got = SECRET_VARIABLES.has(variable) ? "got a value that is not shown" : `got ${describeValue(env[variable])}`;
    throw invalid(`${variable} ${issue.message} (${got})`);
  }
  const vars = parsed.data;
  const sessionSecret = secretFrom(env, "BATON_SESSION_SECRET") ?? null;
  if (sessionSecret !== null && sessionSecret.length < 32)
    throw invalid("BATON_SESSION_SECRET_FILE must hold at least 32 characters (got a value that is not shown)");
  const sessionMaxAgeSeconds = vars.BATON_SESSION_MAX_AGE_HOURS * 3600;
  const isOidc = vars.BATON_OIDC_ISSUER !== undefined;
  const isProxy = vars.BATON_AUTH_PROXY_HEADER !== undefined;
  if (isOidc && isProxy) throw invalid("set either BATON_OIDC_ISSUER (sign-in) or BATON_AUTH_PROXY_HEADER (trusted proxy), not both");

  if (isOidc) {
    const clientSecret = secretFrom(env, "BATON_OIDC_CLIENT_SECRET");
    if (!vars.BATON_OIDC_CLIENT_ID) throw invalid("BATON_OIDC_CLIENT_ID is required with BATON_OIDC_ISSUER");
    if (!clientSecret) throw invalid("BATON_OIDC_CLIENT_SECRET or BATON_OIDC_CLIENT_SECRET_FILE is required with BATON_OIDC_ISSUER");
    if (!vars.BATON_PUBLIC_URL) throw invalid("BATON_PUBLIC_URL is required with BATON_OIDC_ISSUER (Baton's address as browsers see it, for the redirect URI)");
    if (sessionSecret === null)
      throw invalid("BATON_SESSION_SECRET or BATON_SESSION_SECRET_FILE is required with BATON_OIDC_ISSUER (it seals the session cookie)");
    const allowedDomains = (vars.BATON_OIDC_ALLOWED_DOMAINS ?? []).map((domain) => domain.toLowerCase().replace(/^@/, ""));
    const allowedGroups = vars.BATON_OIDC_ALLOWED_GROUPS ?? [];
    if (allowedDomains.length === 0 && allowedGroups.length === 0) {
      throw invalid(
        'BATON_OIDC_ALLOWED_DOMAINS or BATON_OIDC_ALLOWED_GROUPS is required with BATON_OIDC_ISSUER (use BATON_OIDC_ALLOWED_DOMAINS="*" to let every user of the provider in)',
      );
    }
    return {
      method: {
        mode: "oidc",
        issuer: vars.BATON_OIDC_ISSUER!,
        clientId: vars.BATON_OIDC_CLIENT_ID,
        clientSecret,
        publicUrl: vars.BATON_PUBLIC_URL,
        scopes: vars.BATON_OIDC_SCOPES,
        allowedDomains,
        allowedGroups,
        groupsClaim: vars.BATON_OIDC_GROUPS_CLAIM,
      },
      sessionSecret,
      sessionMaxAgeSeconds,
    };
  }
  if (isProxy) {
    if (!vars.BATON_AUTH_TRUSTED_PROXIES)
      throw invalid("BATON_AUTH_TRUSTED_PROXIES is required with BATON_AUTH_PROXY_HEADER (the addresses the header is accepted from)");
    return {
      method: { mode: "proxy", userHeader: vars.BATON_AUTH_PROXY_HEADER!.toLowerCase(), trustedProxies: vars.BATON_AUTH_TRUSTED_PROXIES },
      sessionSecret,
      sessionMaxAgeSeconds,
    };
  }
  if (vars.BATON_ACCESS_CONTROL_REQUIRED === "true") {
    throw invalid(
      "BATON_ACCESS_CONTROL_REQUIRED is true but no access control is configured: set BATON_OIDC_ISSUER (sign-in) or BATON_AUTH_PROXY_HEADER (trusted proxy)",
    );
  }
  return { method: { mode: "open" }, sessionSecret, sessionMaxAgeSeconds };
}
