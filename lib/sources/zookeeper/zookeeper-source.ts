import { createRateLimiter } from "@/lib/poller/rate-limiter";
import type { HoldHint, HoldObservation } from "@/lib/poller/contract/hold-observation";
import type { HoldReadError, HoldSource } from "@/lib/poller/contract/hold-source";

import { createDiscovery } from "./discover-lock-paths";
import { type ElectionTally, type LeaderNodeReading, tallyElections, toLeaderNodeObservation } from "./leader-observation";
import { toLockObservation } from "./lock-observation";
import { readLeaderNodes } from "./read-leader-nodes";
import { readLockPaths } from "./read-lock-paths";
import { createWatchedReads } from "./watched-reads";
import { toZookeeperHint } from "./watch-hint";
import { SEMAPHORE_LEASES } from "./recipe-layout";
import {
  DUMP_WHITELIST_NOTE,
  judgeHolderSessions,
  keepDeadlinesOfEndedSessions,
  type ListedDeadlines,
  readSessionDump,
  rememberListedDeadlines,
  type SessionDump,
} from "./session-dump";
import type { SystemInterpreter, SystemRole } from "./systems/system-role";
import type { ZookeeperClusterConfig } from "./zookeeper-config";
import { createZookeeperConnection } from "./zookeeper-connection";
import { parentOf } from "./znode-path";

// The ZooKeeper source as the shared hold cycles read it: discovery, reads of lock nodes (each
// arming a child watch, or for a node that is itself the lock a data or `exists` watch), the
// server's session deadlines, and watch fires as change hints.

export type ZookeeperSourceConfig = ZookeeperClusterConfig & { digestSecret?: string };
/** A ZooKeeper cluster entry made ready: its secret read, its poll interval defaulted. */
export type ZookeeperKindConfig = ZookeeperSourceConfig & { pollIntervalMs: number };

/**
 * Requests in flight at once: the client pipelines them on one connection and the server answers
 * them in order. 1,000 is the server's own default bound (globalOutstandingLimit): measured here,
 * 10,000 getData took about 1 s at 1,000 in flight (as with no bound) and 1.7-2 s at 64-256.
 */
const MAX_IN_FLIGHT = 1_000;
/** A `dump` this fresh serves the next read too (a burst of watch-triggered reads asks once). */
const DUMP_MAX_AGE_MS = 1_000;
/** After the server refused `dump` (auto), ask again this much later (its whitelist may change on a restart). */
const DUMP_RETRY_MS = 60_000;

export function createZookeeperSource(config: ZookeeperSourceConfig, log?: (line: string) => void): HoldSource {
  const limiter = createRateLimiter({ requestsPerSecond: config.requestsPerSecond, maxConcurrency: MAX_IN_FLIGHT });
  const connection = createZookeeperConnection({
    connectString: config.connectString,
    sessionTimeoutMs: config.sessionTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    digest: config.digestSecret ?? config.digest,
    limiter,
    log,
  });
  // Leader nodes unchanged since their last read are answered from memory (their watches armed).
  const watchedReads = createWatchedReads(connection);
  const discovery = createDiscovery(config, connection, (paths) => onHints?.(paths.map((key) => toZookeeperHint(key, "found", new Date().toISOString()))));
  /** Per lock with a system's own election count: the count at the last read (missed elections). */
  const tallies = new Map<string, ElectionTally>();
  /** Each system's interpreter (Patroni's members and switchovers), made at its first read. */
  const interpreters = new WeakMap<SystemRole, SystemInterpreter>();
  /** Nodes watched for a lock beside it (a system's side nodes, its read standbys' directory): the lock each is for. */
  const watchedFor = new Map<string, string>();
  /** The holds whose data named no holder, each said once in the log (path and token). */
  const saidUnread = new Map<string, string>();
  let dumpRequests = 0;
  /** The refusal of `dump` is said once, at the first read (start-up), not every minute it is asked again. */
  let hasSaidDumpRefused = false;
  let dump: { value: SessionDump | null; atMs: number } | null = null;
  /** Per lock, its holder's session deadline as its last read's dump listed it (keepDeadlinesOfEndedSessions). */
  const listedDeadlines: ListedDeadlines = new Map();
  let onHints: ((hints: HoldHint[]) => void) | null = null;

  // One function for every lock node, so the client keeps one registration per node.
  const watch = (event: { path: string; type: string }) => {
    if (onHints === null) return;
    const lock = watchedFor.get(event.path);
    if (lock !== undefined) {
      onHints([toZookeeperHint(lock, `${event.type} ${event.path}`, new Date().toISOString())]);
      return;
    }
    // A semaphore mutex's `leases` child is watched for its lock node.
    const key =
      discovery.patternOf(event.path) === null && event.path.endsWith(`/${SEMAPHORE_LEASES}`) ? event.path.slice(0, -SEMAPHORE_LEASES.length - 1) : event.path;
    if (discovery.patternOf(key) === null) return;
    onHints([toZookeeperHint(key, event.type, new Date().toISOString())]);
  };

  /** What the system's interpreter makes of a read (its standbys' order, its details, how the last hold ended); the observation as is without one. */
  function interpret(role: SystemRole, reading: LeaderNodeReading, observation: HoldObservation): HoldObservation {
    // Their watches (armed by the read) bring a read of this lock.
    for (const path of Object.values(role.sideNodes?.(reading.path) ?? {})) {
      watchedFor.set(path, reading.path);
      // Listed for which of them exist (read-leader-nodes.ts): a child watch fires on it.
      watchedFor.set(parentOf(path), reading.path);
    }
    if (role.standbys?.isDataRead) watchedFor.set(role.standbys.path(reading.path), reading.path);
    if (role.createInterpreter === undefined) return observation;
    let interpreter = interpreters.get(role);
    if (interpreter === undefined) {
      interpreter = role.createInterpreter();
      interpreters.set(role, interpreter);
    }
    const view = interpreter({
      lockPath: reading.path,
      hold:
        reading.node === null || observation.holder === null || observation.holderToken === null
          ? null
          : { holder: observation.holder, token: observation.holderToken, czxid: reading.node.stat.czxid, expiresAt: observation.expiresAt },
      standbys: reading.standbyNodes ?? null,
      sideNodes: reading.sideNodes ?? {},
      observedAt: reading.observedAt,
    });
    return {
      ...observation,
      waiters: view.waiters ?? observation.waiters,
      details: { ...observation.details, ...view.details },
      ...(view.previousEnding === undefined ? {} : { previousEnding: view.previousEnding }),
    };
  }

  async function readDump(): Promise<{ value: SessionDump | null; error: HoldReadError | null }> {
    if (config.sessionDump === "off") return { value: null, error: null };
    const now = performance.now();
    const maxAge = dump?.value === null ? DUMP_RETRY_MS : DUMP_MAX_AGE_MS;
    if (dump !== null && now - dump.atMs < maxAge) return { value: dump.value, error: null };
    dumpRequests += 1;
    try {
      const value = await readSessionDump(config.connectString, config.requestTimeoutMs);
      dump = { value, atMs: now };
      if (value === null && !hasSaidDumpRefused) log?.(`ZooKeeper ${config.connectString} refuses the \`dump\` four-letter word: ${DUMP_WHITELIST_NOTE}`);
      hasSaidDumpRefused ||= value === null;
      if (value === null && config.sessionDump === "on")
        return {
          value,
          error: {
            master: "dump",
            message: "the servers refuse the `dump` four-letter word: add it to zookeeper.4lw.commands.whitelist, or set sessionDump to auto",
          },
        };
      return { value, error: null };
    } catch (error) {
      // Unreachable: the reads say so for every lock; no deadlines this time.
      return { value: null, error: config.sessionDump === "on" ? { master: "dump", message: (error as Error).message } : null };
    }
  }

  return {
    async discover() {
      const found = await discovery.discover();
      return { keys: found.keys, errors: found.errors, isComplete: found.isComplete };
    },
    async observe(keys) {
      const nodeKeys = keys.filter((ref) => discovery.targetOf(ref).recipe === "ephemeral-node");
      const queueKeys = keys.filter((ref) => discovery.targetOf(ref).recipe !== "ephemeral-node");
      const [queues, nodes, sessions] = await Promise.all([
        queueKeys.length === 0
          ? { readings: [], errors: [] }
          : readLockPaths(connection, queueKeys, { recipeOf: (ref) => discovery.targetOf(ref).recipe, maxWaitersRead: config.maxWaitersRead, watch }),
        nodeKeys.length === 0
          ? { readings: [], errors: [] }
          : readLeaderNodes(connection, watchedReads, nodeKeys, { roleOf: (ref) => discovery.targetOf(ref).role, watch }),
        readDump(),
      ]);
      const facts = { dump: keepDeadlinesOfEndedSessions(sessions.value, listedDeadlines), batonSessionTimeoutMs: connection.session().timeoutMs };
      const observations: HoldObservation[] = queues.readings.map((reading) => {
        const observation = toLockObservation(reading, facts);
        const role = discovery.targetOf({ key: reading.path, pattern: reading.pattern }).role;
        return role === null ? observation : { ...observation, details: { ...observation.details, system: role.system, role: role.describe(reading.path) } };
      });
      for (const reading of nodes.readings) {
        const role = discovery.targetOf({ key: reading.path, pattern: reading.pattern }).role;
        const { observation, failure } = toLeaderNodeObservation(reading, facts, role);
        if (failure !== null && saidUnread.get(reading.path) !== observation.holderToken) {
          log?.(`ZooKeeper ${config.connectString}: ${reading.path}: the holder is named by its session ${observation.holder}: ${failure.message}`);
          saidUnread.set(reading.path, observation.holderToken ?? "");
        }
        const interpreted = role === null ? observation : interpret(role, reading, observation);
        if (role?.electionCount === undefined) {
          observations.push(interpreted);
          continue;
        }
        const tally = tallyElections(tallies.get(reading.path), interpreted.holderToken, reading.electionCount);
        tallies.set(reading.path, tally);
        observations.push({ ...interpreted, details: { ...interpreted.details, electionsMissed: tally.missed } });
      }
      rememberListedDeadlines(listedDeadlines, observations, sessions.value);
      const errors = [...queues.errors, ...nodes.errors];
      return { observations, errors: sessions.error ? [...errors, sessions.error] : errors };
    },
    async checkHolders(tokens) {
      // Always a new dump: one read before the change could show a session that ended since.
      if (config.sessionDump === "off") return new Map();
      dumpRequests += 1;
      const value = await readSessionDump(config.connectString, config.requestTimeoutMs);
      if (value === null) return new Map();
      dump = { value, atMs: performance.now() };
      return judgeHolderSessions(tokens, value, connection.session().id);
    },
    patternOf: (key) => discovery.patternOf(key),
    async watch(hints, onResync) {
      onHints = hints;
      const unsubscribe = connection.onSession((event) =>
        // A reconnect may have missed changes; an expired session lost every watch. A full read
        // sets them again.
        onResync(event === "expired" ? "ZooKeeper session expired; watches are set again by a full read" : "reconnected to ZooKeeper"),
      );
      return {
        mode: "watches",
        async stop() {
          onHints = null;
          unsubscribe();
        },
      };
    },
    takeRequestCount() {
      const count = limiter.takeRequestCount() + dumpRequests;
      dumpRequests = 0;
      return count;
    },
    close: () => connection.close(),
  };
}
