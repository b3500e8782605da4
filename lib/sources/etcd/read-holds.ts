import type { HoldObservation } from "@/lib/poller/contract/hold-observation";
import type { HoldReadError, LockRef } from "@/lib/poller/contract/hold-source";

import { type LeaseTimeToLive, readLeaseTimeToLive, readRange } from "./etcd-api";
import type { EtcdWatchedPrefix } from "./etcd-config";
import { type Contender, groupContenders, rangeOfResource, toContender } from "./etcd-layout";
import { toHoldObservation } from "./etcd-observation";
import type { EtcdTransport } from "./etcd-transport";
import type { KeyIndex, KnownLease } from "./key-index";

// Discovery and reads of elections and locks: ranges over the watched prefixes (or over one
// held thing's keys), then one LeaseTimeToLive per holder lease. A held thing whose range or
// lease could not be read is an error, never free.

/**
 * From this many held things asked under one prefix on, the whole prefix is read (pages of 1,000
 * keys) rather than one range each: a full read of 5,000 elections is then 15 ranges, not 5,000.
 */
const WHOLE_PREFIX_MIN = 16;

export type HoldReader = {
  discover(): Promise<{ keys: LockRef[]; errors: HoldReadError[]; isComplete: boolean }>;
  observe(refs: LockRef[]): Promise<{ observations: HoldObservation[]; errors: HoldReadError[] }>;
};

type Range = { contenders: Map<string, Contender[]>; revision: number; observedAt: string };

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

export function createHoldReader(transport: EtcdTransport, prefixes: EtcdWatchedPrefix[], index: KeyIndex, options: { leaseRereadMs: number }): HoldReader {
  const watchedOf = new Map(prefixes.map((watched) => [watched.prefix, watched]));

  function contendersOf(kvs: Awaited<ReturnType<typeof readRange>>["kvs"], watched: EtcdWatchedPrefix): Map<string, Contender[]> {
    const contenders = kvs.flatMap((kv) => toContender(kv, watched.layout) ?? []);
    return groupContenders(contenders);
  }

  async function readWholePrefix(watched: EtcdWatchedPrefix): Promise<Range> {
    const read = await readRange(transport, watched.prefix);
    return { contenders: contendersOf(read.kvs, watched), revision: read.revision, observedAt: read.answeredAt };
  }

  async function readOne(ref: LockRef, watched: EtcdWatchedPrefix): Promise<Range> {
    const range = rangeOfResource(ref.key, watched.layout);
    const read = await readRange(transport, range.prefix, { isExact: range.isExact });
    const own = contendersOf(read.kvs, watched).get(ref.key) ?? [];
    return { contenders: new Map([[ref.key, own]]), revision: read.revision, observedAt: read.answeredAt };
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
            for (const resourceKey of contendersOf(read.kvs, watched).keys()) keys.push({ key: resourceKey, pattern: watched.prefix });
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

      const readings: { ref: LockRef; contenders: Contender[]; revision: number; observedAt: string }[] = [];
      await Promise.all(
        [...byPrefix].map(async ([watched, asked]) => {
          if (asked.length >= WHOLE_PREFIX_MIN) {
            try {
              const range = await readWholePrefix(watched);
              for (const ref of asked)
                readings.push({ ref, contenders: range.contenders.get(ref.key) ?? [], revision: range.revision, observedAt: range.observedAt });
            } catch (error) {
              for (const ref of asked) errors.push({ key: ref.key, message: messageOf(error) });
            }
            return;
          }
          await Promise.all(
            asked.map(async (ref) => {
              try {
                const range = await readOne(ref, watched);
                readings.push({ ref, contenders: range.contenders.get(ref.key) ?? [], revision: range.revision, observedAt: range.observedAt });
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
