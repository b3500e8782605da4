// Baton's etcd source: who leads each etcd election and holds each etcd lock. The files, in the
// order a poll uses them:
//   etcd-config.ts       the `kind: "etcd"` settings (zod) and their one-line errors
//   etcd-transport.ts    the JSON gateway over HTTP: members with failover, auth token, TLS, budget
//   etcd-api.ts          one function per endpoint: kv/range, lease/timetolive, maintenance/status
//   etcd-layout.ts       Go's Election/Mutex and the Node etcd3 client's Election/Lock key layouts
//   read-holds.ts        discovery (keys only) and reads (ranges, then each holder's lease TTL)
//   etcd-observation.ts  one election or lock's contenders -> the shared HoldObservation
//   watch-holds.ts       a Watch per prefix from a known revision: hints, resumption, compaction
//   key-index.ts         what the reads learned that the watch's DELETE events need
//   patroni-*.ts         Patroni's clusters: their keys, their observation, how a primary's hold ended
// No Next and no Prisma here: the poller owns storage.

import type { HoldSource } from "@/lib/poller/contract/hold-source";

import type { EtcdClusterConfig } from "./etcd-config";
import { isUnderPrefix } from "./etcd-layout";
import { createEtcdTransport, resolveCredentials } from "./etcd-transport";
import { createKeyIndex } from "./key-index";
import { createPatroniMemory } from "./patroni-endings";
import { createHoldReader } from "./read-holds";
import { watchHolds } from "./watch-holds";

export { etcdClusterSchema, parseEtcdClusterConfig } from "./etcd-config";
export type { EtcdClusterConfig, EtcdClusterInput, EtcdLayout, EtcdWatchedPrefix } from "./etcd-config";
export { EtcdSourceError } from "./etcd-error";

/**
 * The etcd source as the shared hold cycles read it. `pollIntervalMs` (the cluster's) sets how
 * soon a lease's TTL is read again: within two polls of its known end, every poll.
 */
export function createEtcdHoldSource(config: EtcdClusterConfig & { pollIntervalMs: number }, log?: (line: string) => void): HoldSource {
  const transport = createEtcdTransport(config, resolveCredentials(config));
  const index = createKeyIndex();
  const patroni = createPatroniMemory();
  const reader = createHoldReader(transport, config.prefixes, index, { leaseRereadMs: 2 * config.pollIntervalMs, patroni, log });
  // The longest prefix first: a held thing under two watched prefixes belongs to the narrower.
  const byLength = [...config.prefixes].sort((a, b) => b.prefix.length - a.prefix.length);
  const stops: (() => Promise<void>)[] = [];
  return {
    discover: () => reader.discover(),
    observe: (refs) => reader.observe(refs),
    patternOf: (key) => byLength.find((watched) => isUnderPrefix(key, watched.prefix))?.prefix ?? null,
    async watch(onHints, onResync) {
      const watcher = await watchHolds({ transport, prefixes: config.prefixes, index, patroni, onHints, onResync, log });
      stops.push(() => watcher.stop());
      return watcher;
    },
    takeRequestCount: () => transport.takeRequestCount(),
    async close() {
      await Promise.all(stops.map((stop) => stop()));
      await transport.close();
    },
  };
}
