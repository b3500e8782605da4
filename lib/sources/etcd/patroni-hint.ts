import type { HoldHint } from "@/lib/poller/contract/hold-observation";

import type { WatchEvent } from "./etcd-api";
import type { EtcdWatchedPrefix } from "./etcd-config";
import type { KeyIndex } from "./key-index";
import type { LeaseAtDelete } from "./lease-at-delete";
import type { PatroniMemory } from "./patroni-endings";
import { patroniScopeOf, toFailoverRequest, toLeaderContender } from "./patroni-layout";

/**
 * A watch event under a Patroni namespace as a hint on its cluster. The leader key's delete is
 * the hold's ending: a release while its lease lived (a switchover, Patroni stopped), an expiry
 * when the lease went at or after its known end (the primary's Patroni died). The memory learns
 * the order of leader keys and switchover requests (patroni-endings.ts) before the hint goes out,
 * so the read it brings about can tell which ending it was. Members, `failover` and `history`
 * bring a read; `status`, `optime`, `config` and the rest move every loop or say nothing of the hold.
 */
export function toPatroniHint(
  event: WatchEvent,
  watched: EtcdWatchedPrefix,
  index: KeyIndex,
  memory: PatroniMemory,
  nowMs: number,
  leaseAtDelete?: LeaseAtDelete,
): HoldHint | null {
  const place = patroniScopeOf(event.kv.key, watched.prefix);
  if (!place) return null;
  const at = new Date(nowMs).toISOString();
  const { resourceKey } = place;
  if (place.rest === "leader") {
    if (event.type === "PUT") {
      const leader = toLeaderContender(event.kv, resourceKey);
      if (!leader) return null;
      index.remember(leader.key, resourceKey, leader.leaseId);
      memory.noteLeader(resourceKey, leader.value, leader.createRevision);
      return { key: resourceKey, kind: "change", event: "PUT leader", at };
    }
    const known = index.find(event.kv.key);
    const expiresAtMs = known ? index.leaseExpiryOf(known.leaseId) : undefined;
    index.forget(event.kv.key);
    const isExpired = leaseAtDelete !== "alive" && expiresAtMs !== undefined && nowMs >= expiresAtMs;
    memory.endLeader(resourceKey, event.kv.modRevision, isExpired ? "EXPIRED" : "RELEASED");
    return { key: resourceKey, kind: isExpired ? "expiry" : "release", event: "DELETE leader", at };
  }
  if (place.rest === "failover") {
    memory.noteFailover(resourceKey, event.type === "PUT" ? toFailoverRequest(event.kv.value, event.kv.modRevision) : null, event.kv.modRevision);
    return { key: resourceKey, kind: "change", event: `${event.type} failover`, at };
  }
  if (place.rest === "history" || place.rest.startsWith("members/")) {
    return { key: resourceKey, kind: "change", event: `${event.type} ${place.rest}`, at };
  }
  return null;
}
