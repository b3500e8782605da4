import type { HoldObservation } from "@/lib/poller/contract/hold-observation";
import type { HoldReadError } from "@/lib/poller/contract/hold-source";

import type { RedisLayout, RedisLockPattern } from "./redis-config";
import type { KeyToRead, LockReading, MasterReadFailure } from "./read-locks";

// Readings -> observations: who holds each lock, with which token, until when. Pure: the
// shared change detection is built on these, and unit tests feed it readings directly.

/** A Redis lock's observation is the shape every lock-like kind hands the shared hold cycles. */
export type LockObservation = HoldObservation;

/** An error about one key (its state is unknown: stale) or, without a key, about a master. */
export type ObservationError = HoldReadError;

const SHORT_TOKEN_LENGTH = 16;

/**
 * Tokens up to 16 characters are shown whole; longer ones as their first 8 and last 4
 * characters around an ellipsis ("6f1c9a2e…77d0"): enough to tell two random tokens apart on a
 * board, short enough for a cell.
 */
export function shortenToken(token: string): string {
  return token.length <= SHORT_TOKEN_LENGTH ? token : `${token.slice(0, 8)}…${token.slice(-4)}`;
}

/** "<uuid>:<threadId>" -> first 8 characters of the uuid + ":" + thread id. */
export function shortenRedissonOwner(owner: string): string {
  const separator = owner.lastIndexOf(":");
  if (separator <= 0) return shortenToken(owner);
  return `${owner.slice(0, Math.min(8, separator))}:${owner.slice(separator + 1)}`;
}

function makeReadable(token: string, layout: RedisLayout, holderRegex: RegExp | null): string {
  const picked = holderRegex?.exec(token)?.groups?.holder;
  if (picked) return picked;
  return layout === "redisson" ? shortenRedissonOwner(token) : shortenToken(token);
}

type Ownership = { token: string | null; reentrancy: number | null; otherFields: Record<string, string> | null };

/** The token a reading shows: the value, or Redisson's one `<uuid>:<threadId>` field with its hold count. */
function ownershipOf(reading: LockReading): Ownership {
  if (reading.layout === "token") return { token: reading.value, reentrancy: null, otherFields: null };
  if (!reading.fields) return { token: null, reentrancy: null, otherFields: null };
  const entries = Object.entries(reading.fields);
  const owner = entries.find(([field, value]) => field.includes(":") && /^\d+$/.test(value));
  const rest = Object.fromEntries(entries.filter(([field]) => field !== owner?.[0]));
  return {
    token: owner?.[0] ?? null,
    reentrancy: owner ? Number(owner[1]) : null,
    otherFields: Object.keys(rest).length > 0 ? rest : null,
  };
}

function expiry(observedAt: string, pttlMs: number | null): { expiresAt: string | null; ttlMs: number | null; neverExpires: boolean } {
  if (pttlMs === null) return { expiresAt: null, ttlMs: null, neverExpires: false };
  if (pttlMs < 0) return { expiresAt: null, ttlMs: null, neverExpires: true };
  return { expiresAt: new Date(Date.parse(observedAt) + pttlMs).toISOString(), ttlMs: pttlMs, neverExpires: false };
}

type PatternLookup = (pattern: string) => { config: RedisLockPattern | undefined; holderRegex: RegExp | null };

function createPatternLookup(patterns: RedisLockPattern[]): PatternLookup {
  const byMatch = new Map(
    patterns.map((pattern) => [pattern.match, { config: pattern, holderRegex: pattern.holderPattern ? new RegExp(pattern.holderPattern) : null }]),
  );
  return (match) => byMatch.get(match) ?? { config: undefined, holderRegex: null };
}

function observeOneMaster(reading: LockReading, lookup: PatternLookup): LockObservation {
  const { config, holderRegex } = lookup(reading.pattern);
  const ownership = ownershipOf(reading);
  const isHeld = ownership.token !== null;
  const { expiresAt, ttlMs, neverExpires } = isHeld ? expiry(reading.observedAt, reading.pttlMs) : { expiresAt: null, ttlMs: null, neverExpires: false };
  const details: Record<string, unknown> = { layout: reading.layout, master: reading.master, mustBeHeld: config?.mustBeHeld ?? false };
  if (ownership.token !== null) details.token = shortenToken(ownership.token);
  if (neverExpires) details.neverExpires = true;
  if (ownership.reentrancy !== null) details.reentrancy = ownership.reentrancy;
  if (ownership.otherFields) details.otherFields = ownership.otherFields;
  if (reading.queueTimeouts.length > 0) {
    details.waiterTimeouts = reading.queueTimeouts.map(({ waiter, timeoutAt }) => ({
      waiter: makeReadable(waiter, reading.layout, holderRegex),
      timeoutAt: new Date(timeoutAt).toISOString(),
    }));
  }
  return {
    resourceKey: reading.key,
    pattern: reading.pattern,
    holder: ownership.token === null ? null : makeReadable(ownership.token, reading.layout, holderRegex),
    holderToken: ownership.token,
    expiresAt,
    ttlMs,
    waiters: reading.queue.map((waiter) => makeReadable(waiter, reading.layout, holderRegex)),
    observedAt: reading.observedAt,
    isSplit: false,
    details,
  };
}

/** The smallest number of masters that is more than half of the group. */
export function majorityOf(groupSize: number): number {
  return Math.floor(groupSize / 2) + 1;
}

function latest(times: string[]): string {
  // biome-ignore lint/complexity/useMathMinMax: ISO instants compared as strings, which Math.max cannot do
  return times.reduce((max, time) => (time > max ? time : max));
}

type RedlockOutcome = { observation: LockObservation | null; errors: ObservationError[] };

/**
 * One key of a Redlock group. The holder is the token present on a majority of the masters.
 * Masters that did not answer are unknown: when they could still change the outcome (a
 * majority might hold a token we cannot see), the key gets an error and no observation, so the
 * poller marks it stale instead of free.
 */
function observeRedlock(key: KeyToRead, readings: LockReading[], masters: string[], unknown: Map<string, string>, lookup: PatternLookup): RedlockOutcome {
  const { config, holderRegex } = lookup(key.pattern);
  const majority = majorityOf(masters.length);
  const answered = readings.filter((reading) => reading.error === null);
  const unknownMasters = masters.filter((master) => !answered.some((reading) => reading.master === master));
  const tokenByMaster = new Map(answered.map((reading) => [reading.master, ownershipOf(reading)]));
  const counts = new Map<string, number>();
  for (const { token } of tokenByMaster.values()) if (token !== null) counts.set(token, (counts.get(token) ?? 0) + 1);
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  const [leader, leaderCount] = ranked[0] ?? [null, 0];

  const mastersDetail = Object.fromEntries(
    masters.map((master) => {
      const ownership = tokenByMaster.get(master);
      return [master, ownership === undefined ? "unknown" : ownership.token === null ? null : shortenToken(ownership.token)];
    }),
  );
  const details: Record<string, unknown> = { layout: key.layout, redlock: true, majority, masters: mastersDetail, mustBeHeld: config?.mustBeHeld ?? false };
  if (unknownMasters.length > 0) details.unansweredMasters = unknownMasters.map((master) => ({ master, message: unknown.get(master) ?? "no answer" }));
  const masterErrors: ObservationError[] = unknownMasters.map((master) => ({
    master,
    message: unknown.get(master) ?? readings.find((reading) => reading.master === master)?.error ?? "no answer",
  }));

  // Decided: a token has its majority, or no token (not even one hidden on the unanswered
  // masters) could still reach one.
  const isDecided = leaderCount >= majority || (ranked.every(([, count]) => count + unknownMasters.length < majority) && unknownMasters.length < majority);
  if (!isDecided || answered.length === 0) {
    const seen = ranked.map(([token, count]) => `${shortenToken(token)} on ${count}`).join(", ") || "no token";
    return {
      observation: null,
      errors: [
        ...masterErrors,
        {
          key: key.key,
          message: `Redlock group cannot decide who holds ${key.key}: ${seen} of ${answered.length} answering masters, ${unknownMasters.length} of ${masters.length} did not answer (a holder needs ${majority})`,
        },
      ],
    };
  }

  const observedAt = latest(answered.map((reading) => reading.observedAt));
  const waiters = answered.find((reading) => reading.queue.length > 0)?.queue.map((waiter) => makeReadable(waiter, key.layout, holderRegex)) ?? [];
  if (leader === null || leaderCount < majority) {
    const isSplit = leader !== null;
    if (isSplit) details.split = Object.fromEntries(ranked.map(([token, count]) => [shortenToken(token), count]));
    return {
      observation: {
        resourceKey: key.key,
        pattern: key.pattern,
        holder: null,
        holderToken: null,
        expiresAt: null,
        ttlMs: null,
        waiters,
        observedAt,
        isSplit,
        details,
      },
      errors: masterErrors,
    };
  }

  // The lock holds while a majority still has the token: the majority-th latest expiry among
  // the masters that hold it.
  const holding = answered.filter((reading) => tokenByMaster.get(reading.master)?.token === leader);
  const expiries = holding.map((reading) => expiry(reading.observedAt, reading.pttlMs));
  // A master whose key never expires outlasts every timed one.
  const neverCount = expiries.filter((entry) => entry.neverExpires).length;
  const neverExpires = neverCount >= majority;
  const timed = expiries.filter((entry) => entry.expiresAt !== null).sort((a, b) => (a.expiresAt! < b.expiresAt! ? 1 : -1));
  const effective = neverExpires ? null : (timed[majority - 1 - neverCount] ?? null);
  details.token = shortenToken(leader);
  details.holdingMasters = leaderCount;
  if (neverExpires) details.neverExpires = true;
  const reentrancy = tokenByMaster.get(holding[0]!.master)?.reentrancy;
  if (reentrancy !== null && reentrancy !== undefined) details.reentrancy = reentrancy;
  return {
    observation: {
      resourceKey: key.key,
      pattern: key.pattern,
      holder: makeReadable(leader, key.layout, holderRegex),
      holderToken: leader,
      expiresAt: effective?.expiresAt ?? null,
      ttlMs: effective?.expiresAt ? Math.max(0, Date.parse(effective.expiresAt) - Date.parse(observedAt)) : null,
      waiters,
      observedAt,
      isSplit: false,
      details,
    },
    errors: masterErrors,
  };
}

export type ObservationInput = {
  /** The keys asked for. */
  keys: KeyToRead[];
  readings: LockReading[];
  failures: MasterReadFailure[];
  patterns: RedisLockPattern[];
  /** The group's master ids for a Redlock group; null for one master or a Redis Cluster. */
  redlockMasters: string[] | null;
};

/**
 * Readings -> observations. A key whose master did not answer (or answered with an error for
 * it) gets an error `{ key, master, message }` and no observation: unknown is never "free".
 * For a Redlock group a failed master that does not change the outcome is reported without a
 * key (surfaced, not stale).
 */
export function toLockObservations(input: ObservationInput): { observations: LockObservation[]; errors: ObservationError[] } {
  const lookup = createPatternLookup(input.patterns);
  const readingsByKey = new Map<string, LockReading[]>();
  for (const reading of input.readings) {
    const list = readingsByKey.get(reading.key) ?? [];
    list.push(reading);
    readingsByKey.set(reading.key, list);
  }
  const failedKeys = new Map<string, MasterReadFailure[]>();
  for (const failure of input.failures) {
    for (const key of failure.keys) failedKeys.set(key, [...(failedKeys.get(key) ?? []), failure]);
  }

  const observations: LockObservation[] = [];
  const errors: ObservationError[] = [];
  const reportedMasters = new Set<string>();
  for (const key of input.keys) {
    const readings = readingsByKey.get(key.key) ?? [];
    if (input.redlockMasters) {
      const unknown = new Map((failedKeys.get(key.key) ?? []).map((failure) => [failure.master, failure.message]));
      for (const reading of readings) if (reading.error) unknown.set(reading.master, `${reading.error} (is ${key.key} a ${key.layout} lock?)`);
      const outcome = observeRedlock(key, readings, input.redlockMasters, unknown, lookup);
      if (outcome.observation) observations.push(outcome.observation);
      for (const error of outcome.errors) {
        // One line per failed master, not one per key: the keys' own errors say which are stale.
        if (error.key === undefined && error.master !== undefined) {
          if (reportedMasters.has(error.master)) continue;
          reportedMasters.add(error.master);
        }
        errors.push(error);
      }
      continue;
    }
    const reading = readings[0];
    if (!reading) {
      const failure = failedKeys.get(key.key)?.[0];
      errors.push({ key: key.key, master: failure?.master, message: failure?.message ?? `no reading of ${key.key}` });
    } else if (reading.error) {
      errors.push({ key: key.key, master: reading.master, message: `${reading.error} (is ${key.key} a ${key.layout} lock?)` });
    } else {
      observations.push(observeOneMaster(reading, lookup));
    }
  }
  return { observations, errors };
}
