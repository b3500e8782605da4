import type { HoldHint } from "@/lib/poller/contract/hold-observation";

import { prefixRangeEnd, readCurrentRevision, toBase64, toWatchEvents, type WatchEvent, watchResponseSchema } from "./etcd-api";
import type { EtcdWatchedPrefix } from "./etcd-config";
import { EtcdSourceError } from "./etcd-error";
import { type LeaseAtDelete, readLeasesAtDelete } from "./lease-at-delete";
import { resourceKeyOfName, toContender } from "./etcd-layout";
import type { EtcdTransport } from "./etcd-transport";
import type { KeyIndex } from "./key-index";
import type { PatroniMemory } from "./patroni-endings";
import { toPatroniHint } from "./patroni-hint";
import { isUnderPatroni } from "./patroni-layout";

// Change signals between reads: one Watch per watched prefix, from a known revision, so no create
// or delete is missed. After a disconnect the watch resumes from the revision after the last
// event it delivered; when that revision was compacted away meanwhile, the events in between are
// lost: it starts again from the current revision and asks for a full read (onResync).

/** Waits between attempts to reopen a watch whose member went away. */
export const REOPEN_DELAY_MS = 500;

export type HoldWatcher = { readonly mode: string; stop(): Promise<void> };

export type WatchHoldsOptions = {
  transport: EtcdTransport;
  prefixes: EtcdWatchedPrefix[];
  index: KeyIndex;
  /** What the watch learns of Patroni's leader keys and switchover requests, in order. */
  patroni: PatroniMemory;
  onHints(hints: HoldHint[]): void;
  onResync(reason: string): void;
  log?: (line: string) => void;
};

/**
 * A watch event as a hint: which held thing it touched; a PUT is a change, and a DELETE a release
 * or, when the holder's lease had run out, an expiry. `leaseAtDelete`: what etcd said of the key's lease right after the delete. A
 * lease still alive means a client deleted the key (an unlock, a resign): a release, however late
 * against the TTL Baton last read. A lease gone was revoked or ran out: before the known expiry
 * it can only have been revoked; at or after it, it is taken to have run out.
 */
export function toHint(event: WatchEvent, watched: EtcdWatchedPrefix, index: KeyIndex, nowMs: number, leaseAtDelete?: LeaseAtDelete): HoldHint | null {
  const at = new Date(nowMs).toISOString();
  if (event.type === "PUT") {
    const contender = toContender(event.kv, watched.layout);
    if (!contender) return null;
    index.remember(contender.key, contender.resourceKey, contender.leaseId);
    // A write says nothing of how a hold ended: an earlier release or expiry is kept for the read.
    return { key: contender.resourceKey, kind: "change", event: event.type, at };
  }
  const known = index.find(event.kv.key);
  const expiresAtMs = known ? index.leaseExpiryOf(known.leaseId) : undefined;
  index.forget(event.kv.key);
  const isExpired = leaseAtDelete !== "alive" && expiresAtMs !== undefined && nowMs >= expiresAtMs;
  return { key: known?.resourceKey ?? resourceKeyOfName(event.kv.key, watched.layout), kind: isExpired ? "expiry" : "release", event: event.type, at };
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Opens a watch per prefix from the revision after the current one (the first full read, which
 * follows, shows everything before). A cluster that cannot be reached yet is retried: the watch
 * starts when it answers, and asks for a full read then (what changed before is unknown to it).
 */
export async function watchHolds(options: WatchHoldsOptions): Promise<HoldWatcher> {
  const controller = new AbortController();
  const { transport } = options;
  let openCount = 0;

  async function follow(watched: EtcdWatchedPrefix, settled: () => void): Promise<void> {
    let nextRevision: number | null = null;
    let lastFailure: string | null = null;
    /** The first revision was read after a failure: what changed before it is unknown until a full read. */
    let startedLate = false;
    while (!controller.signal.aborted) {
      let isOpen = false;
      try {
        if (nextRevision === null) {
          nextRevision = (await readCurrentRevision(transport, watched.prefix)) + 1;
          startedLate = lastFailure !== null;
        }
        const stream = await transport.stream(
          "watch",
          {
            create_request: {
              key: toBase64(watched.prefix),
              range_end: prefixRangeEnd(watched.prefix).toString("base64"),
              start_revision: String(nextRevision),
            },
          },
          controller.signal,
        );
        for await (const line of stream.lines) {
          const parsed = watchResponseSchema.safeParse(line);
          if (!parsed.success) throw new EtcdSourceError("invalid-response", stream.member, `watch: unexpected message ${JSON.stringify(line).slice(0, 120)}`);
          const result = parsed.data.result;
          if (!result) throw new EtcdSourceError("answer", stream.member, `watch: ${parsed.data.error?.message ?? "ended without a result"}`);
          if (result.created && !isOpen) {
            isOpen = true;
            openCount += 1;
            if (lastFailure !== null) options.log?.(`etcd watch of "${watched.prefix}" resumed from revision ${nextRevision}`);
            lastFailure = null;
            settled();
            // Asked once the watch is in force: the full read it asks for then sees the same
            // revision the watch follows from, and `mode` already says "watch".
            if (startedLate) options.onResync(`etcd watch of "${watched.prefix}" started late, from revision ${nextRevision}`);
            startedLate = false;
          }
          if (Number(result.compact_revision) > 0) {
            // The revisions from nextRevision on are gone: what changed in between is unknown.
            const current = await readCurrentRevision(transport, watched.prefix);
            // The order of Patroni's writes in between is lost with them.
            if (watched.layout === "patroni") options.patroni.forget();
            options.onResync(`etcd compacted the history of "${watched.prefix}" to revision ${result.compact_revision}; watching again from ${current + 1}`);
            nextRevision = current + 1;
            break;
          }
          if (result.canceled) throw new EtcdSourceError("answer", stream.member, `watch canceled: ${result.cancel_reason ?? "no reason given"}`);
          const events = toWatchEvents(result.events);
          if (events.length === 0) continue;
          const nowMs = Date.now();
          const leasesAtDelete = await readLeasesAtDelete(transport, events, options.index, options.log);
          const hints = events.flatMap((event) => {
            const leaseId = event.type === "DELETE" ? options.index.find(event.kv.key)?.leaseId : undefined;
            const leaseAtDelete = leaseId === undefined ? undefined : leasesAtDelete.get(leaseId);
            if (watched.layout === "patroni") return toPatroniHint(event, watched, options.index, options.patroni, nowMs, leaseAtDelete) ?? [];
            // A Patroni key seen by a wider prefix's watch: its namespace's watch tells of it.
            if (isUnderPatroni(event.kv.key, options.prefixes)) return [];
            return toHint(event, watched, options.index, nowMs, leaseAtDelete) ?? [];
          });
          // A loop, not Math.max(...): a resumed watch can deliver a long backlog at once.
          for (const event of events) nextRevision = Math.max(nextRevision, event.kv.modRevision + 1);
          if (hints.length > 0) options.onHints(hints);
        }
      } catch (error) {
        if (controller.signal.aborted) break;
        const message = error instanceof Error ? error.message : String(error);
        // One line per outage, not one per attempt.
        if (message !== lastFailure)
          options.log?.(
            `etcd watch of "${watched.prefix}" interrupted (${message}); ${nextRevision === null ? "starting when etcd answers" : `resuming from revision ${nextRevision}`}`,
          );
        lastFailure = message;
        settled();
      } finally {
        if (isOpen) openCount -= 1;
      }
      await delay(REOPEN_DELAY_MS, controller.signal);
    }
  }

  // Returns once every watch is open or has failed once, so that `mode` says what is in force.
  const firsts: Promise<void>[] = [];
  const loops = options.prefixes.map((watched) => {
    let settled: () => void = () => undefined;
    firsts.push(new Promise<void>((resolve) => (settled = resolve)));
    return follow(watched, () => settled());
  });
  await Promise.all(firsts);
  return {
    get mode() {
      return openCount === options.prefixes.length ? "watch" : openCount === 0 ? "none" : "watch (partial)";
    },
    async stop() {
      controller.abort();
      await Promise.all(loops);
    },
  };
}
