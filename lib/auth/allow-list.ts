import "server-only";

import type { OidcAccessConfig } from "@/lib/auth/access-config";

/**
 * Whether a signed-in user may use Baton: an e-mail in an allowed domain (a verified one, when
 * the provider says whether it is), or membership in an allowed group.
 */
export function isAllowedUser(claims: Record<string, unknown>, config: Pick<OidcAccessConfig, "allowedDomains" | "allowedGroups" | "groupsClaim">): boolean {
  const email = typeof claims.email === "string" ? claims.email.toLowerCase() : null;
  const isEmailUsable = email !== null && claims.email_verified !== false;
  if (isEmailUsable && config.allowedDomains.length > 0) {
    if (config.allowedDomains.includes("*")) return true;
    const domain = email.slice(email.lastIndexOf("@") + 1);
    if (email.includes("@") && config.allowedDomains.includes(domain)) return true;
  }
  const groups = claims[config.groupsClaim];
  const memberOf = Array.isArray(groups) ? groups.filter((group): group is string => typeof group === "string") : typeof groups === "string" ? [groups] : [];
  return memberOf.some((group) => config.allowedGroups.includes(group));
}
