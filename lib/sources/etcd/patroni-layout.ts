import { z } from "zod";

import type { EtcdKeyValue } from "./etcd-api";
import type { EtcdWatchedPrefix } from "./etcd-config";
import { type Contender, leaseHexOf } from "./etcd-layout";

// Patroni (PostgreSQL high availability) on etcd v3, as patroni/dcs/etcd3.py lays its keys out
// under its namespace (`/service/` by default), one directory per cluster (`scope`). Pure.
//   <scope>/leader          the primary's member name, on that member's lease (TTL = `ttl`)
//   <scope>/members/<name>  JSON (role, state, conn_url, api_url, timeline, xlog_location...), on
//                           the same member's lease: gone with it when the member dies
//   <scope>/failover        {"leader":"pg0","member":"pg1"} while a switchover is asked for, then {}
//   <scope>/history         JSON list of [timeline, LSN, reason, timestamp, new leader]
//   <scope>/config, initialize, status, optime/..., sync: no lease, not read for the hold
// The cluster is the lock (named `<namespace><scope>`), the leader key its hold; member keys are
// never locks of their own.

/** Whether a key lies under one of the Patroni namespaces: it is no contender of another layout (a member key is no lock). */
export function isUnderPatroni(key: string, prefixes: EtcdWatchedPrefix[]): boolean {
  return prefixes.some((watched) => watched.layout === "patroni" && key.startsWith(watched.prefix));
}

/** The held thing of a Patroni key: its cluster's directory, and the rest of the key in it. */
export function patroniScopeOf(key: string, namespace: string): { resourceKey: string; scope: string; rest: string } | null {
  if (!key.startsWith(namespace)) return null;
  const inside = key.slice(namespace.length);
  const slash = inside.indexOf("/");
  if (slash <= 0 || slash === inside.length - 1) return null;
  const scope = inside.slice(0, slash);
  return { resourceKey: `${namespace}${scope}`, scope, rest: inside.slice(slash + 1) };
}

/** A key Patroni writes for a cluster (not a stray key that happens to lie under the namespace). */
export function isPatroniClusterKey(rest: string): boolean {
  return rest === "leader" || rest === "config" || rest === "initialize" || rest === "failover" || rest === "history" || rest.startsWith("members/");
}

const memberSchema = z
  .object({
    role: z.string().optional(),
    state: z.string().optional(),
    conn_url: z.string().optional(),
    api_url: z.string().optional(),
    timeline: z.number().int().optional(),
    xlog_location: z.number().optional(),
    tags: z.object({ nofailover: z.boolean().optional() }).passthrough().optional(),
  })
  .passthrough();

export type PatroniMember = {
  name: string;
  /** Patroni's words: master/primary, replica, standby_leader... null when its JSON could not be read. */
  role: string | null;
  /** running, streaming, stopped, starting... */
  state: string | null;
  timeline: number | null;
  /** WAL position in bytes (a replica's: replayed), as Patroni last wrote it. */
  xlogLocation: number | null;
  apiUrl: string | null;
  /** tags.nofailover: Patroni never promotes it. */
  isNoFailover: boolean;
  leaseHex: string | null;
  /** The value was no JSON object Patroni writes: kept as a member with nothing known of it. */
  isUnreadable: boolean;
};

export type FailoverRequest = { leader: string | null; member: string | null; scheduledAt: string | null; modRevision: number };

export type PatroniCluster = {
  resourceKey: string;
  scope: string;
  /** The leader key as a contender: its value is the primary's member name. */
  leader: Contender | null;
  members: PatroniMember[];
  /** A switchover or failover asked for and not yet carried out; null when none is. */
  failover: FailoverRequest | null;
  /** Timelines Patroni recorded (one line per promotion after the first) and the last line's reason and leader. */
  history: { entries: number; lastReason: string | null; lastLeader: string | null } | null;
};

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function toPatroniMember(name: string, kv: EtcdKeyValue): PatroniMember {
  const parsed = memberSchema.safeParse(parseJson(kv.value));
  const leaseHex = kv.leaseId === "0" ? null : leaseHexOf(kv.leaseId);
  if (!parsed.success) {
    return { name, role: null, state: null, timeline: null, xlogLocation: null, apiUrl: null, isNoFailover: false, leaseHex, isUnreadable: true };
  }
  const data = parsed.data;
  return {
    name,
    role: data.role ?? null,
    state: data.state ?? null,
    timeline: data.timeline ?? null,
    xlogLocation: data.xlog_location ?? null,
    apiUrl: data.api_url ?? null,
    isNoFailover: data.tags?.nofailover === true,
    leaseHex,
    isUnreadable: false,
  };
}

const failoverSchema = z.object({ leader: z.string().optional(), member: z.string().optional(), scheduled_at: z.string().optional() }).passthrough();

/** The request a `failover` value holds; null for `{}` (none pending), a deleted key or a value Patroni would not write. */
export function toFailoverRequest(value: string, modRevision: number): FailoverRequest | null {
  const parsed = failoverSchema.safeParse(parseJson(value));
  if (!parsed.success || (parsed.data.leader === undefined && parsed.data.member === undefined)) return null;
  return { leader: parsed.data.leader ?? null, member: parsed.data.member ?? null, scheduledAt: parsed.data.scheduled_at ?? null, modRevision };
}

function toHistory(value: string): PatroniCluster["history"] {
  const parsed = parseJson(value);
  if (!Array.isArray(parsed)) return null;
  const last = parsed.at(-1) as unknown;
  const line = Array.isArray(last) ? last : [];
  return {
    entries: parsed.length,
    lastReason: typeof line[2] === "string" ? line[2] : null,
    lastLeader: typeof line[4] === "string" ? line[4] : null,
  };
}

export function toLeaderContender(kv: EtcdKeyValue, resourceKey: string): Contender | null {
  // Patroni always puts its leader key on its member lease; without one it is no hold Baton can time.
  if (kv.leaseId === "0" || kv.value === "") return null;
  return {
    key: kv.key,
    resourceKey,
    layout: "patroni",
    value: kv.value,
    leaseId: kv.leaseId,
    leaseHex: leaseHexOf(kv.leaseId),
    createRevision: kv.createRevision,
    modRevision: kv.modRevision,
  };
}

/** The Patroni clusters the keys under `namespace` make up (a key-only read still names them). */
export function toPatroniClusters(kvs: EtcdKeyValue[], namespace: string): Map<string, PatroniCluster> {
  const clusters = new Map<string, PatroniCluster>();
  for (const kv of kvs) {
    const place = patroniScopeOf(kv.key, namespace);
    if (!place || !isPatroniClusterKey(place.rest)) continue;
    let cluster = clusters.get(place.resourceKey);
    if (!cluster) {
      cluster = { resourceKey: place.resourceKey, scope: place.scope, leader: null, members: [], failover: null, history: null };
      clusters.set(place.resourceKey, cluster);
    }
    if (place.rest === "leader") cluster.leader = toLeaderContender(kv, place.resourceKey);
    else if (place.rest === "failover") cluster.failover = toFailoverRequest(kv.value, kv.modRevision);
    else if (place.rest === "history") cluster.history = toHistory(kv.value);
    else if (place.rest.startsWith("members/")) cluster.members.push(toPatroniMember(place.rest.slice("members/".length), kv));
  }
  for (const cluster of clusters.values()) cluster.members.sort((a, b) => a.name.localeCompare(b.name));
  return clusters;
}
