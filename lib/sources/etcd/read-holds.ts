import type { HoldObservation } from "@/lib/poller/contract/hold-observation";
import type { HoldReadError, LockRef } from "@/lib/poller/contract/hold-source";

import { type LeaseTimeToLive, readLeaseTimeToLive, readRange } from "./etcd-api";
import type { EtcdWatchedPrefix } from "./etcd-config";
import { type Contender, groupContenders, rangeOfResource, toContender } from "./etcd-layout";
import { toHoldObservation } from "./etcd-observation";
import type { EtcdTransport } from "./etcd-transport";
import type { KeyIndex, KnownLease } from "./key-index";
import type { PatroniMemory } from "./patroni-endings";
import { isUnderPatroni, type PatroniCluster, toPatroniClusters } from "./patroni-layout";
import { toPatroniObservation } from "./patroni-observation";

// Discovery and reads of elections and locks: ranges over the watched prefixes (or over one
// held thing's keys), then one LeaseTimeToLive per holder lease. A held thing whose range or
// lease could not be read is an error, never free. Under a Patroni namespace a held thing is a
// cluster (its leader key and members); keys under one are no contenders of any other prefix.

/**
 * From this many held things asked under one prefix on, the whole prefix is read (pages of 1,000
 * keys) rather than one range each: a full read of 5,000 elections is then 15 ranges, not 5,000.
 */
const WHOLE_PREFIX_MIN = 16;

export type HoldReader = {
  discover(): Promise<{ keys: LockRef[]; errors: HoldReadError[]; isComplete: boolean }>;
  observe(refs: LockRef[]): Promise<{ observations: HoldObservation[]; errors: HoldReadError[] }>;
};

/** A held thing's keys: its contenders in order (the first holds), and for Patroni the whole cluster. */
type Group = { contenders: Contender[]; cluster?: PatroniCluster };
type Range = { groups: Map<string, Group>; revision: number; observedAt: string };

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A lease's expiry only moves later (keep-alives) until it is revoked, which deletes its keys (a
 * watch event and a read show that). So a TTL read earlier is a lower bound of the expiry, good
 * while it is far off: it is read again only when less than half the granted TTL, or less than
 * `leaseRereadMs`, is known to be left. A Go session's 60 s lease is then read about every
 * 25 s rather than every poll; a lease near its end (a stalled or dead holder) every poll.
 */
export function isLeaseReadDue(known: KnownLease | undefined, nowMs: number, leaseRereadMs: number): boolean {
  if (!known) return true;
  return known.expiresAtMs - nowMs < Math.max((known.grantedTtlSeconds * 1000) / 2, leaseRereadMs);
}

export function createHoldReader(
  transport: EtcdTransport,
  prefixes: EtcdWatchedPrefix[],
  index: KeyIndex,
  options: { leaseRereadMs: number; patroni: PatroniMemory; log?: (line: string) => void },
): HoldReader {
  const watchedOf = new Map(prefixes.map((watched) => [watched.prefix, watched]));
  /** Member keys whose unreadable value was logged already: one line per key, not one per read. */
  const loggedUnreadable = new Set<string>();

  function groupsOf(kvs: Awaited<ReturnType<typeof readRange>>["kvs"], watched: EtcdWatchedPrefix): Map<string, Group> {
    if (watched.layout === "patroni") {
      const clusters = toPatroniClusters(kvs, watched.prefix);
      return new Map([...clusters].map(([key, cluster]) => [key, { contenders: cluster.leader ? [cluster.leader] : [], cluster }]));
    }
    const contenders = kvs.flatMap((kv) => (isUnderPatroni(kv.key, prefixes) ? [] : (toContender(kv, watched.layout) ?? [])));
    return new Map([...groupContenders(contenders)].map(([key, group]) => [key, { contenders: group }]));
  }

  async function readWholePrefix(watched: EtcdWatchedPrefix): Promise<Range> {
    const read = await readRange(transport, watched.prefix);
    return { groups: groupsOf(read.kvs, watched), revision: read.revision, observedAt: read.answeredAt };
  }

  async function readOne(ref: LockRef, watched: EtcdWatchedPrefix): Promise<Range> {
    const range = rangeOfResource(ref.key, watched.layout);
    const read = await readRange(transport, range.prefix, { isExact: range.isExact });
    const own = groupsOf(read.kvs, watched).get(ref.key) ?? { contenders: [] };
    return { groups: new Map([[ref.key, own]]), revision: read.revision, observedAt: read.answeredAt };
  }

  /** A Patroni cluster's reading, with what the watch saw of how its last primary's hold ended. */
  function observePatroni(
    cluster: PatroniCluster,
    reading: { ref: LockRef; revision: number; observedAt: string },
    lease: LeaseTimeToLive | null,
  ): HoldObservation {
    const memory = options.patroni;
    memory.noteFailover(cluster.resourceKey, cluster.failover, reading.revision);
    if (cluster.leader) memory.noteLeader(cluster.resourceKey, cluster.leader.value, cluster.leader.createRevision);
    for (const member of cluster.members) {
      const memberKey = `${cluster.resourceKey}/members/${member.name}`;
      if (!member.isUnreadable || loggedUnreadable.has(memberKey)) continue;
      loggedUnreadable.add(memberKey);
      options.log?.(
        `etcd key ${memberKey} (Patroni member of cluster ${cluster.scope}) is no JSON object Patroni writes: shown as a standby with nothing known of it`,
      );
    }
    return toPatroniObservation({
      cluster,
      pattern: reading.ref.pattern,
      revision: reading.revision,
      observedAt: reading.observedAt,
      lease,
      ending: memory.endingBefore(cluster.resourceKey, cluster.leader?.createRevision ?? null),
    });
  }

  return {
    async discover() {
      const keys: LockRef[] = [];
      const errors: HoldReadError[] = [];
      await Promise.all(
        prefixes.map(async (watched) => {
          try {
            // Keys only: discovery needs names, leases and revisions, not the proposals.
            const read = await readRange(transport, watched.prefix, { isKeysOnly: true });
            for (const resourceKey of groupsOf(read.kvs, watched).keys()) keys.push({ key: resourceKey, pattern: watched.prefix });
          } catch (error) {
            errors.push({ message: `discovery under "${watched.prefix}": ${messageOf(error)}` });
          }
        }),
      );
      return { keys, errors, isComplete: errors.length === 0 };
    },

    async observe(refs) {
      const errors: HoldReadError[] = [];
      const byPrefix = new Map<EtcdWatchedPrefix, LockRef[]>();
      for (const ref of refs) {
        const watched = watchedOf.get(ref.pattern);
        if (!watched) {
          errors.push({ key: ref.key, message: `prefix "${ref.pattern}" is not watched` });
          continue;
        }
        const list = byPrefix.get(watched);
        if (list) list.push(ref);
        else byPrefix.set(watched, [ref]);
      }

      const readings: { ref: LockRef; contenders: Contender[]; cluster?: PatroniCluster; revision: number; observedAt: string }[] = [];
      await Promise.all(
        [...byPrefix].map(async ([watched, asked]) => {
          if (asked.length >= WHOLE_PREFIX_MIN) {
            try {
              const range = await readWholePrefix(watched);
              for (const ref of asked)
                readings.push({ ref, ...(range.groups.get(ref.key) ?? { contenders: [] }), revision: range.revision, observedAt: range.observedAt });
            } catch (error) {
              for (const ref of asked) errors.push({ key: ref.key, message: messageOf(error) });
            }
            return;
          }
          await Promise.all(
            asked.map(async (ref) => {
              try {
                const range = await readOne(ref, watched);
                readings.push({ ref, ...(range.groups.get(ref.key) ?? { contenders: [] }), revision: range.revision, observedAt: range.observedAt });
              } catch (error) {
                errors.push({ key: ref.key, message: messageOf(error) });
              }
            }),
          );
        }),
      );

      // One LeaseTimeToLive per holder lease: a Go session holds many elections under one lease.
      const holderLeases = new Set(readings.flatMap((reading) => (reading.contenders[0] ? [reading.contenders[0].leaseId] : [])));
      const leases = new Map<string, LeaseTimeToLive | Error>();
      const nowMs = Date.now();
      await Promise.all(
        [...holderLeases].map(async (leaseId) => {
          const known = index.leaseOf(leaseId);
          if (!isLeaseReadDue(known, nowMs, options.leaseRereadMs)) {
            // The bound as of now: whole seconds, rounded down, like etcd's own answer.
            leases.set(leaseId, { ...known!, ttlSeconds: Math.floor((known!.expiresAtMs - nowMs) / 1000), answeredAt: new Date(nowMs).toISOString() });
            return;
          }
          try {
            const lease = await readLeaseTimeToLive(transport, leaseId);
            index.setLease(lease);
            // Gone since the range (revoked or expired: its keys go with it): the last known
            // expiry is what tells the two apart when the delete arrives, so it is kept.
            leases.set(leaseId, lease.ttlSeconds < 0 ? (known ?? lease) : lease);
          } catch (error) {
            leases.set(leaseId, error as Error);
          }
        }),
      );

      const observations: HoldObservation[] = [];
      for (const reading of readings) {
        const holder = reading.contenders[0];
        const lease = holder ? leases.get(holder.leaseId)! : null;
        if (lease instanceof Error) {
          // Without the lease the expiry is unknown: that is no reading of the holder.
          errors.push({ key: reading.ref.key, message: `lease ${holder!.leaseHex}: ${lease.message}` });
          continue;
        }
        for (const contender of reading.contenders) index.remember(contender.key, contender.resourceKey, contender.leaseId);
        index.retain(reading.ref.key, new Set(reading.contenders.map((c) => c.key)));
        if (reading.cluster) {
          observations.push(observePatroni(reading.cluster, reading, lease));
          continue;
        }
        observations.push(
          toHoldObservation({
            resourceKey: reading.ref.key,
            pattern: reading.ref.pattern,
            contenders: reading.contenders,
            revision: reading.revision,
            observedAt: reading.observedAt,
            lease,
          }),
        );
      }
      return { observations, errors };
    },
  };
}
