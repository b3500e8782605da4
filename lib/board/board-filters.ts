// The board's filters: read from and written to the URL (so a link pasted into an incident
// channel opens the same view), and applied to the groups. Client-safe and pure: the board
// filters as you type, and the read API applies the same text match.

import type { SubscriptionGroup } from "@/lib/board/board-types";

export type BoardFilters = {
  cluster: string | null;
  tenant: string | null;
  namespace: string | null;
  /** Words that must all appear in the subscription, topic, consumers or health (case-insensitive); for locks, the key, pattern, holder, waiters or health. */
  q: string;
  includeGone: boolean;
  /** Which kinds of held things: null (all), "pulsar" (subscriptions), "locks", or one lock source kind ("redis"). See lock-filters.ts. */
  kind: string | null;
};

export const NO_FILTERS: BoardFilters = { cluster: null, tenant: null, namespace: null, q: "", includeGone: false, kind: null };

type ParamSource = URLSearchParams | Record<string, string | string[] | undefined>;

function readParam(params: ParamSource, name: string): string | null {
  const value = params instanceof URLSearchParams ? params.get(name) : params[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === null || text.trim() === "" ? null : text.trim();
}

/** The filters in a URL's query (unknown or empty parameters mean "no filter"). */
export function readBoardFilters(params: ParamSource): BoardFilters {
  return {
    cluster: readParam(params, "cluster"),
    tenant: readParam(params, "tenant"),
    namespace: readParam(params, "namespace"),
    q: readParam(params, "q") ?? "",
    includeGone: readParam(params, "includeGone") === "true",
    kind: readParam(params, "kind"),
  };
}

/** The query string of some filters, without the ones that are not set. */
export function writeBoardFilters(filters: BoardFilters): string {
  const params = new URLSearchParams();
  if (filters.cluster) params.set("cluster", filters.cluster);
  if (filters.tenant) params.set("tenant", filters.tenant);
  if (filters.namespace) params.set("namespace", filters.namespace);
  if (filters.q.trim()) params.set("q", filters.q.trim());
  if (filters.includeGone) params.set("includeGone", "true");
  if (filters.kind) params.set("kind", filters.kind);
  return params.toString();
}

const haystacks = new WeakMap<SubscriptionGroup, string>();

function haystackOf(group: SubscriptionGroup): string {
  let text = haystacks.get(group);
  if (text === undefined) {
    text = [
      group.cluster,
      group.topic,
      group.subscription,
      group.subscriptionType ?? "",
      group.health,
      ...group.consumers,
      ...group.holders,
      ...group.flags.map((f) => f.label),
    ]
      .join("\n")
      .toLowerCase();
    haystacks.set(group, text);
  }
  return text;
}

/** True when every word of `q` appears in the group's names, consumers or health. */
export function matchesText(group: SubscriptionGroup, q: string): boolean {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const text = haystackOf(group);
  return words.every((word) => text.includes(word));
}

export function filterGroups(groups: SubscriptionGroup[], filters: BoardFilters): SubscriptionGroup[] {
  const { cluster, tenant, namespace, q } = filters;
  if (!cluster && !tenant && !namespace && !q.trim()) return groups;
  return groups.filter(
    (g) => (!cluster || g.cluster === cluster) && (!tenant || g.tenant === tenant) && (!namespace || g.namespace === namespace) && matchesText(g, q),
  );
}

/** The tenants and namespaces to offer, within the chosen cluster (and tenant). */
export function listFacets(groups: SubscriptionGroup[], filters: Pick<BoardFilters, "cluster" | "tenant">): { tenants: string[]; namespaces: string[] } {
  const tenants = new Set<string>();
  const namespaces = new Set<string>();
  for (const g of groups) {
    if (filters.cluster && g.cluster !== filters.cluster) continue;
    tenants.add(g.tenant);
    if (!filters.tenant || g.tenant === filters.tenant) namespaces.add(g.namespace);
  }
  return { tenants: [...tenants].sort(), namespaces: [...namespaces].sort() };
}
