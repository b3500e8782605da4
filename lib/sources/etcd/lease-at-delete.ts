import { readLeaseTimeToLive, type WatchEvent } from "./etcd-api";
import { leaseHexOf } from "./etcd-layout";
import type { EtcdTransport } from "./etcd-transport";
import type { KeyIndex } from "./key-index";

// What etcd knows at a delete: whether the deleted key's lease still lives. A key bound to a lease
// goes with the lease (revoked, or run out) or by a client's delete while the lease lives (Go's
// Mutex.Unlock, Election.Resign: etcdctl lock deletes its key and leaves its lease to run out).
// Asked the moment the watch delivers the delete, not reckoned from a TTL read earlier: a holder
// that renews keeps its lease well past any TTL Baton read.

export type LeaseAtDelete = "alive" | "gone";

/** One LeaseTimeToLive per lease of the deleted keys Baton knows; a lease it could not ask about is absent (the caller falls back on the known expiry). */
export async function readLeasesAtDelete(
  transport: EtcdTransport,
  events: WatchEvent[],
  index: KeyIndex,
  log?: (line: string) => void,
): Promise<Map<string, LeaseAtDelete>> {
  const leaseIds = new Set(events.flatMap((event) => (event.type === "DELETE" ? (index.find(event.kv.key)?.leaseId ?? []) : [])));
  const states = new Map<string, LeaseAtDelete>();
  await Promise.all(
    [...leaseIds].map(async (leaseId) => {
      try {
        const lease = await readLeaseTimeToLive(transport, leaseId);
        // etcd answers TTL -1 for a lease it no longer has; 0 is a lease in its last second.
        states.set(leaseId, lease.ttlSeconds >= 0 ? "alive" : "gone");
        index.setLease(lease);
      } catch (error) {
        log?.(
          `etcd lease ${leaseHexOf(leaseId)} could not be read at its key's delete (${error instanceof Error ? error.message : String(error)}); its ending is judged from the expiry last read`,
        );
      }
    }),
  );
  return states;
}
