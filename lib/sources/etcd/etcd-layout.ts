import type { EtcdKeyValue } from "./etcd-api";
import type { EtcdLayout } from "./etcd-config";

// How the lock recipes lay their keys out, and which held thing (an election, a mutex, a lock) a
// key belongs to. Pure.
//   Go concurrency Election / Mutex (etcdctl elect / lock): `<name>/<lease id in hex>`, created
//   under the session's lease; the lowest create revision leads, the others wait in that order.
//   An Election's value is the proposal (a pod name); a Mutex's is empty.
//   Node etcd3 Election: `election/<name>/<lease id in decimal>` = the campaign's value.
//   Node etcd3 Lock: the key itself, empty, under a 30 s lease; a second taker fails: no queue.

export type ConcreteLayout = Exclude<EtcdLayout, "auto">;

/** A key that takes part in an election or lock. */
export type Contender = {
  key: string;
  /** The election's or lock's name: the key without its lease segment (etcd3-lock: the key). */
  resourceKey: string;
  layout: ConcreteLayout;
  value: string;
  leaseId: string;
  leaseHex: string;
  createRevision: number;
  modRevision: number;
};

function splitLast(key: string): { parent: string; last: string } | null {
  const slash = key.lastIndexOf("/");
  return slash <= 0 ? null : { parent: key.slice(0, slash), last: key.slice(slash + 1) };
}

export function leaseHexOf(leaseId: string): string {
  return BigInt(leaseId).toString(16);
}

/**
 * The contender a key is under `layout`, or null when the key is none: no lease (a lock key always
 * has one), or a name whose last segment is not its own lease id where the layout wants it.
 */
export function toContender(kv: EtcdKeyValue, layout: EtcdLayout): Contender | null {
  // Patroni's keys make up clusters, not contenders one by one (patroni-layout.ts).
  if (kv.leaseId === "0" || layout === "patroni") return null;
  const leaseHex = leaseHexOf(kv.leaseId);
  const parts = splitLast(kv.key);
  const isGoKey = parts !== null && parts.last === leaseHex;
  const isNodeKey = parts !== null && parts.last === kv.leaseId;
  const base = { key: kv.key, value: kv.value, leaseId: kv.leaseId, leaseHex, createRevision: kv.createRevision, modRevision: kv.modRevision };
  const concrete = ((): ConcreteLayout | null => {
    if (layout === "auto") {
      if (isGoKey) return kv.value === "" ? "go-mutex" : "go-election";
      return isNodeKey ? "etcd3-election" : "etcd3-lock";
    }
    if (layout === "go-election" || layout === "go-mutex") return isGoKey ? layout : null;
    if (layout === "etcd3-election") return isNodeKey ? layout : null;
    return layout;
  })();
  if (concrete === null) return null;
  return { ...base, layout: concrete, resourceKey: concrete === "etcd3-lock" ? kv.key : parts!.parent };
}

/**
 * The held thing a key belongs to from its name alone (a DELETE event carries no lease): the
 * parent of a lease-id segment (hex for Go's layouts, decimal for etcd3's), else the key.
 */
export function resourceKeyOfName(key: string, layout: EtcdLayout): string {
  const parts = splitLast(key);
  if (layout === "etcd3-lock" || layout === "patroni" || parts === null) return key;
  const isHex = /^[0-9a-f]{1,16}$/.test(parts.last);
  const isDecimal = /^\d{1,20}$/.test(parts.last);
  if (layout === "go-election" || layout === "go-mutex") return isHex ? parts.parent : key;
  if (layout === "etcd3-election") return isDecimal ? parts.parent : key;
  // A Go lease id in hex is 16 digits in practice (member id bits + counter); etcd3's decimal ids are 19.
  return (isHex && parts.last.length >= 12) || (isDecimal && parts.last.length >= 15) ? parts.parent : key;
}

/** The contenders of each held thing, in create-revision order: the first holds it, the others wait. */
export function groupContenders(contenders: Contender[]): Map<string, Contender[]> {
  const groups = new Map<string, Contender[]>();
  for (const contender of contenders) {
    const group = groups.get(contender.resourceKey);
    if (group) group.push(contender);
    else groups.set(contender.resourceKey, [contender]);
  }
  for (const group of groups.values()) group.sort((a, b) => a.createRevision - b.createRevision);
  return groups;
}

/** How a contender is named on the pages: its proposal, or its lease id when the value is empty (a Mutex, an etcd3 Lock). */
export function nameOf(contender: Contender): string {
  return contender.value !== "" ? contender.value : contender.leaseHex;
}

/**
 * The key range to read one held thing again: the key itself for an etcd3 Lock, its children for
 * an election or mutex, and under `auto` both (the keys that start with its name; the contenders
 * of other names found there are dropped by the caller).
 */
export function rangeOfResource(resourceKey: string, layout: EtcdLayout): { prefix: string; isExact: boolean } {
  if (layout === "etcd3-lock") return { prefix: resourceKey, isExact: true };
  if (layout === "patroni") return { prefix: `${resourceKey}/`, isExact: false };
  return layout === "auto" ? { prefix: resourceKey, isExact: false } : { prefix: `${resourceKey}/`, isExact: false };
}

/** True when a held thing (its name, or a key of it) lies under a watched prefix. */
export function isUnderPrefix(resourceKey: string, prefix: string): boolean {
  return resourceKey.startsWith(prefix) || `${resourceKey}/`.startsWith(prefix);
}
