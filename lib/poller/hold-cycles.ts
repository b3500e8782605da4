import "server-only";

import { type ConcurrentHoldPair, pairsOf } from "@/lib/poller/concurrent-hold-events";
import { detectHoldChanges } from "@/lib/poller/detect-hold-changes";
import type { HoldChange, HoldState } from "@/lib/poller/hold-state";
import { markGone, markStale } from "@/lib/poller/mark-gaps";
import type { PredictNextHolder } from "@/lib/poller/next-holder";
import type { CycleResult, HoldResourceKind, SourceCycles } from "@/lib/poller/source-cycles";
import { waitUntilWoken } from "@/lib/poller/wait-until-woken";
import { type HoldHint, type HoldObservation, type HolderLiveness, isEndingHint } from "@/lib/poller/contract/hold-observation";
import type { HoldReadError, HoldSource, HoldWatch, LockRef } from "@/lib/poller/contract/hold-source";

export type HoldCyclesOptions = {
  resourceKind: HoldResourceKind;
  /** The kind's next-in-line rule (its description's): without it, changes are not scored against a prediction. */
  predictNextHolder?: PredictNextHolder;
  discoveryIntervalMs: number;
  /** A full read of every known lock at least this often; change signals trigger reads of their keys in between. */
  pollIntervalMs: number;
  log?: (line: string) => void;
};

/**
 * The hint kept for a key between two reads, of two in arrival order. The first ending (a release
 * or an expiry) is kept: it belongs to the hold that ended, and the next holder's writes (its
 * acquire, its TTL) often arrive before the read. Until an ending arrives, the latest hint, except
 * that one naming no event does not replace one that names it (the same write announced twice).
 */
export function keepEnding(before: HoldHint | null | undefined, next: HoldHint | null | undefined): HoldHint | null {
  if (before !== undefined && before !== null && isEndingHint(before)) return before;
  if (next === undefined || next === null) return before ?? null;
  if (before === undefined || before === null || isEndingHint(next) || next.event !== null) return next;
  return before;
}

/** The token of a hold this observation ends (another token, or none, where one was held); null if none ended. */
function endedHolderToken(prev: HoldState | undefined, obs: HoldObservation): string | null {
  if (prev === undefined || prev.lastObservedAt === null || prev.holderToken === null) return null;
  return prev.holderToken === obs.holderToken ? null : prev.holderToken;
}

/**
 * Asks the source, once per read and only where holds ended, whether their holders still live.
 * A source that cannot say, or fails to, leaves the endings to hints and the clock.
 */
async function checkEndedHolders(source: HoldSource, observations: HoldObservation[], states: Map<string, HoldState>): Promise<Map<string, HolderLiveness>> {
  if (source.checkHolders === undefined) return new Map();
  const tokens = observations.flatMap((obs) => endedHolderToken(states.get(obs.resourceKey), obs) ?? []);
  if (tokens.length === 0) return new Map();
  return source.checkHolders([...new Set(tokens)]).catch(() => new Map<string, HolderLiveness>());
}

function describeError(error: HoldReadError): string {
  return error.master ? `${error.master}: ${error.message}` : error.message;
}

/**
 * The cycles of every lock-like kind: discovery every discoveryIntervalMs, a full read of the
 * known locks every poll interval (the truth), and in between, as soon as the source signals a
 * change, a read of just the signalled keys. A lock the source could not read goes stale with its
 * last holder kept; a free lock that discovery no longer finds is gone.
 */
export async function openHoldCycles(source: HoldSource, saved: HoldState[], options: HoldCyclesOptions): Promise<SourceCycles> {
  const states = new Map<string, HoldState>(saved.map((s) => [s.resourceKey, s]));
  const known = new Map<string, LockRef>();
  for (const state of saved) if (state.goneAt === null) known.set(state.resourceKey, { key: state.resourceKey, pattern: state.pattern });
  let lastDiscoveryAt = Number.NEGATIVE_INFINITY;
  let lastFullReadAt = Number.NEGATIVE_INFINITY;
  /** Keys signalled since the last read, with the hint that tells how a hold ended (null: read it, nothing said). */
  let pending = new Map<string, HoldHint | null>();
  let wake: (() => void) | null = null;
  const poke = () => {
    wake?.();
    wake = null;
  };
  const onHints = (hints: HoldHint[]) => {
    for (const hint of hints) pending.set(hint.key, keepEnding(pending.get(hint.key), hint));
    poke();
  };
  let watch: HoldWatch | null = null;
  let loggedMode: string | null = null;
  /** Says what signals are in force whenever that changes: "none" at start must not outlive the signals' return. */
  const logMode = () => {
    const mode = watch?.mode;
    if (mode === undefined || mode === loggedMode) return;
    options.log?.(
      loggedMode === null ? `lock change signals: ${mode}` : `lock change signals: ${mode} (${mode === "none" ? "lost" : "resumed"}; were ${loggedMode})`,
    );
    loggedMode = mode;
  };
  const onResync = (reason: string) => {
    options.log?.(`lock change signals lost (${reason}); reading every lock again`);
    lastFullReadAt = Number.NEGATIVE_INFINITY;
    logMode();
    poke();
  };
  // Signals only make reads come sooner: without them (refused, unreachable) polls carry on.
  const opened = await source.watch(onHints, onResync).catch((error: unknown): HoldWatch => {
    options.log?.(`no lock change signals (${(error as Error).message}); polling only`);
    return { mode: "none", stop: async () => {} };
  });
  watch = opened;
  logMode();

  function isFullReadDue(now: number): boolean {
    return now - lastFullReadAt >= options.pollIntervalMs;
  }

  return {
    async run(): Promise<CycleResult> {
      logMode();
      const now = Date.now();
      const errors: CycleResult["errors"] = [];
      let discovered: Set<string> | null = null;
      let discoveryMs: number | null = null;
      if (now - lastDiscoveryAt >= options.discoveryIntervalMs) {
        const discoveryStart = performance.now();
        const found = await source.discover();
        discoveryMs = performance.now() - discoveryStart;
        for (const error of found.errors) errors.push({ target: error.key ?? "(discovery)", message: describeError(error) });
        // Only a complete pass without errors can tell that a lock is gone.
        if (found.errors.length === 0 && found.isComplete) {
          discovered = new Set(found.keys.map((k) => k.key));
          lastDiscoveryAt = now;
        }
        for (const ref of found.keys) known.set(ref.key, ref);
      }
      const hints = pending;
      pending = new Map();
      for (const key of hints.keys()) {
        if (known.has(key)) continue;
        const pattern = source.patternOf(key);
        if (pattern !== null) known.set(key, { key, pattern });
      }
      const isFull = isFullReadDue(now) || discovered !== null;
      const targets = isFull ? [...known.values()] : [...hints.keys()].flatMap((key) => (known.has(key) ? [known.get(key)!] : []));
      if (isFull) lastFullReadAt = now;

      const read = targets.length > 0 ? await source.observe(targets) : { observations: [], errors: [] };
      const failedAt = new Date().toISOString();
      for (const error of read.errors) errors.push({ target: error.key ?? error.master ?? "(read)", message: describeError(error) });

      const previousHolders = await checkEndedHolders(source, read.observations, states);
      const touched: HoldState[] = [];
      const changes: HoldChange[] = [];
      const concurrentHolds: ConcurrentHoldPair[] = [];
      const observedKeys = new Set<string>();
      for (const seen of read.observations) {
        concurrentHolds.push(...pairsOf(seen));
        const endedToken = endedHolderToken(states.get(seen.resourceKey), seen);
        const liveness = endedToken === null ? undefined : previousHolders.get(endedToken);
        const obs = liveness === undefined ? seen : { ...seen, previousHolder: liveness };
        observedKeys.add(obs.resourceKey);
        // A signal that arrived while the read was under way may be the very change the read
        // found (a release answered by the read before its event came): it explains it, and
        // stays pending, so the next read looks again. Merged as any two hints of a key are.
        const hint = keepEnding(hints.get(obs.resourceKey), pending.get(obs.resourceKey));
        const detection = detectHoldChanges(states.get(obs.resourceKey), obs, hint, options.predictNextHolder);
        touched.push(detection.next);
        changes.push(...detection.changes);
      }
      // A lock that could not be read keeps its last holder and goes stale: never "free".
      const firstError = read.errors[0];
      for (const ref of targets) {
        if (observedKeys.has(ref.key)) continue;
        const prev = states.get(ref.key);
        const error = read.errors.find((e) => e.key === ref.key) ?? firstError;
        if (prev) touched.push(markStale(prev, error ? describeError(error) : "not read", failedAt));
        else if (error) pending.set(ref.key, null);
      }
      // A free lock that discovery no longer finds, and that nobody held for a whole discovery
      // interval, is gone (an ephemeral per-job key). One released a moment ago is kept: a lock
      // taken again and again (a leader lock, a job's lock) must be read when it comes back,
      // also where no change signal covers it. A held or stale one is kept until seen free.
      if (discovered !== null) {
        const indexOf = new Map(touched.map((s, i) => [s.resourceKey, i]));
        for (const key of [...known.keys()]) {
          if (discovered.has(key)) continue;
          const i = indexOf.get(key);
          const state = i === undefined ? states.get(key) : touched[i];
          if (!state || state.holder !== null || state.staleSince !== null) continue;
          if (state.lastChangeAt !== null && now - Date.parse(state.lastChangeAt) < options.discoveryIntervalMs) continue;
          known.delete(key);
          const gone = markGone(state, failedAt);
          if (i === undefined) touched.push(gone);
          else touched[i] = gone;
        }
      }
      return {
        states: { shape: "hold", resourceKind: options.resourceKind, states: touched },
        isFullSweep: isFull,
        changes,
        errors,
        targetCount: known.size,
        requestCount: source.takeRequestCount(),
        retryAfterMs: 0,
        discoveryMs,
        ...(concurrentHolds.length > 0 ? { concurrentHolds } : {}),
      };
    },
    commit(result) {
      if (result.states.shape !== "hold") return;
      for (const state of result.states.states) states.set(state.resourceKey, state);
    },
    async waitForNext(untilMs, signal) {
      if (pending.size > 0) return;
      // After a read of signalled keys only, the next full read stays on its own schedule.
      const dueMs = Math.min(untilMs, lastFullReadAt + options.pollIntervalMs);
      await waitUntilWoken(dueMs, signal, (next) => (wake = next));
    },
    async close() {
      await opened.stop();
      await source.close();
    },
  };
}
