import { compareText } from "@/lib/compare-text";
import {
  type PatroniHistory,
  type PatroniRequest,
  type PatroniMember as SharedPatroniMember,
  readPatroniHistory,
  readPatroniMember,
  readPatroniRequest,
} from "@/lib/sources/patroni-members";

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

/** A member, with the lease its key is on (it goes with the member's Patroni). */
export type PatroniMember = SharedPatroniMember & { leaseHex: string | null };

/** A pending request and the revision of the `failover` key's last write (a read told apart from an older one). */
export type FailoverRequest = PatroniRequest & { modRevision: number };

export type PatroniCluster = {
  resourceKey: string;
  scope: string;
  /** The leader key as a contender: its value is the primary's member name. */
  leader: Contender | null;
  members: PatroniMember[];
  /** A switchover or failover asked for and not yet carried out; null when none is. */
  failover: FailoverRequest | null;
  /** Timelines Patroni recorded (one line per promotion after the first) and the last line's reason and leader. */
  history: PatroniHistory | null;
};

export function toPatroniMember(name: string, kv: EtcdKeyValue): PatroniMember {
  return { ...readPatroniMember(name, kv.value), leaseHex: kv.leaseId === "0" ? null : leaseHexOf(kv.leaseId) };
}

/** The request a `failover` value holds; null for `{}` (none pending), a deleted key or a value Patroni would not write. */
export function toFailoverRequest(value: string, modRevision: number): FailoverRequest | null {
  const request = readPatroniRequest(value);
  return request === null ? null : { ...request, modRevision };
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
    else if (place.rest === "history") cluster.history = readPatroniHistory(kv.value);
    else if (place.rest.startsWith("members/")) cluster.members.push(toPatroniMember(place.rest.slice("members/".length), kv));
  }
  for (const cluster of clusters.values()) cluster.members.sort((a, b) => compareText(a.name, b.name));
  return clusters;
}
