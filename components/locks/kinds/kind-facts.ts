// Readings of each lock kind's own details (what lib/sources/<kind> puts in a hold's `details`,
// and the change's `sourceBefore` / `sourceAfter`): pure and client-safe, so the per-kind panels
// only draw and the unit tests read the same words the pages show.

import { formatDuration } from "@/lib/board/format";
import { isLockSourceKind } from "@/lib/sources/kind-descriptions";

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);
const count = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);
const record = (value: unknown): Record<string, unknown> | null =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

/** A detail value in a plain key/value list: strings and numbers as they are, the rest as JSON. */
export function describeDetailValue(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** The sequence number at the end of a ZooKeeper contender node ("_c_…-latch-0000000012" -> 12), or null. */
export function zookeeperSequence(node: string): number | null {
  const match = /(\d{10})$/.exec(node);
  return match ? Number(match[1]) : null;
}

export type ZookeeperWaiter = { name: string; node: string | null; sequence: number | null; session: string | null };

/** The waiters in queue order with their nodes, sequences and sessions (the names come from the hold's waiters, the nodes from its details). */
export function readZookeeperWaiters(waiters: string[], details: Record<string, unknown>): ZookeeperWaiter[] {
  const nodes = Array.isArray(details.waiterNodes) ? details.waiterNodes.map(record) : [];
  return waiters.map((name, index) => {
    const node = text(nodes[index]?.node);
    return { name, node, sequence: node === null ? null : zookeeperSequence(node), session: text(nodes[index]?.session) };
  });
}

/** A ZooKeeper hold's session: the details' holderSessionId, else the token's "<session>/<node>" prefix. */
export function zookeeperSessionOf(details: Record<string, unknown> | null, token: string | null): string | null {
  const fromDetails = text(details?.holderSessionId);
  if (fromDetails !== null) return fromDetails;
  const slash = token?.indexOf("/") ?? -1;
  return token !== null && slash > 0 ? token.slice(0, slash) : null;
}

/**
 * A live etcd holder keeps its lease alive (clients renew at a third of the TTL): its TTL left
 * stays above two thirds of the granted TTL. Under half left at the last read means nobody renews
 * it: the holder stopped without resigning, and its key stays until the lease runs out.
 */
export function isEtcdLeaseUnrenewed(details: Record<string, unknown>): boolean {
  const left = count(details.leaseTtlS);
  const granted = count(details.leaseGrantedTtlS);
  if (left === null || granted === null || granted <= 0) return false;
  return left < granted / 2;
}

export type KindChangeWords = { words: string /** A new session of the same participant: a hidden flap. */; isLoud: boolean };

/** What one change did to the kind's own details, in words (null when the stored change has none of them). */
export function describeKindChange(
  kind: string | null,
  change: { kind: string; fromHolder: string | null; toHolder: string | null; details: Record<string, unknown> },
): KindChangeWords | null {
  const words = describeKindChangeWords(kind, change);
  if (words === null) return null;
  return { words, isLoud: words.startsWith(NEW_SESSION_WORDS) };
}

const NEW_SESSION_WORDS = "new session of the same participant";

function describeKindChangeWords(
  kind: string | null,
  change: { kind: string; fromHolder: string | null; toHolder: string | null; details: Record<string, unknown> },
): string | null {
  const before = record(change.details.sourceBefore);
  const after = record(change.details.sourceAfter);
  const tokenBefore = text(change.details.tokenBefore);
  const tokenAfter = text(change.details.tokenAfter);
  // The cases are checked against the lock kinds of lib/sources/kind-descriptions.ts.
  if (kind === null || !isLockSourceKind(kind)) return null;
  switch (kind) {
    case "zookeeper": {
      const sessionBefore = change.fromHolder === null ? null : zookeeperSessionOf(before, tokenBefore);
      const sessionAfter = change.toHolder === null ? null : zookeeperSessionOf(after, tokenAfter);
      const node = text(after?.holderNode);
      const sequence = node === null ? null : zookeeperSequence(node);
      const isNewSession =
        change.fromHolder !== null &&
        change.fromHolder === change.toHolder &&
        sessionBefore !== null &&
        sessionAfter !== null &&
        sessionBefore !== sessionAfter;
      const missed = describeMissedElections(after);
      // A Patroni cluster: how the last primary's hold ended, in Patroni's words, first.
      const patroniEnding = describePatroniEnding(record(after?.previousPrimary), change.fromHolder, "session");
      if (isNewSession)
        return `${NEW_SESSION_WORDS}: session ${sessionBefore} → ${sessionAfter}${sequence === null ? "" : `, node sequence ${sequence}`}${missed === null ? "" : `, ${missed}`}`;
      const parts = [
        patroniEnding,
        sessionAfter ? `session ${sessionAfter}` : null,
        sequence === null ? null : `node sequence ${sequence}`,
        sessionBefore && change.fromHolder ? `was session ${sessionBefore}` : null,
        missed,
      ];
      return joinParts(parts);
    }
    case "etcd": {
      // A Patroni cluster: how the last primary's hold ended, in Patroni's words, first.
      const patroniEnding = describePatroniEnding(record(after?.previousPrimary), change.fromHolder, "lease");
      const lease = text(after?.leaseId) ?? tokenAfter?.split("@")[0] ?? null;
      const revision = count(after?.createRevision) ?? (tokenAfter?.includes("@") ? Number(tokenAfter.split("@")[1]) : null);
      const ttlBefore = count(before?.leaseTtlS);
      const parts = [
        patroniEnding,
        change.toHolder !== null && lease ? `lease ${lease}` : null,
        change.toHolder !== null && revision !== null && Number.isFinite(revision) ? `create revision ${revision}` : null,
        change.fromHolder !== null && ttlBefore !== null ? `the previous lease had ${ttlBefore} s left` : null,
      ];
      return joinParts(parts);
    }
    case "redis": {
      const token = text(after?.token);
      const reentrancy = count(after?.reentrancy);
      return joinParts([
        change.toHolder !== null && token ? `token ${token}` : null,
        reentrancy !== null && change.toHolder !== null ? `held ${reentrancy}×` : null,
      ]);
    }
    case "dynamodb": {
      const versionBefore = text(before?.recordVersionNumber);
      const versionAfter = text(after?.recordVersionNumber);
      if (versionBefore === null && versionAfter === null) return null;
      return `record version ${versionBefore ?? "—"} → ${versionAfter ?? "—"}${after?.isReleased === true ? " (released)" : ""}`;
    }
    default:
      return null;
  }
}

/**
 * How a Patroni primary's hold ended, as the etcd or ZooKeeper kind saw it (details.previousPrimary
 * of the change's hold after): "released: switchover to pg1", "expired: failover (pg0's lease ran
 * out)", "released: pg0 deleted its leader key". `heldBy`: what a primary holds the leader by (an
 * etcd lease, a ZooKeeper session). Null when the change is not the end of that primary's hold.
 */
export function describePatroniEnding(previous: Record<string, unknown> | null, fromHolder: string | null, heldBy: "lease" | "session"): string | null {
  const name = text(previous?.name);
  if (previous === null || name === null || name !== fromHolder) return null;
  // A switchover or failover someone asked for (patronictl): the primary let go of its key.
  const candidate = /\bto (\S+) requested\b/.exec(text(previous.reason) ?? "")?.[1];
  const to = candidate ? ` to ${candidate}` : "";
  if (previous.kind === "switchover") return `released: switchover${to}`;
  if (previous.kind === "failover" && previous.ending === "RELEASED") return `released: manual failover${to}`;
  if (previous.kind === "failover") return `expired: failover (${name}'s ${heldBy} ran out)`;
  if (previous.kind === "released") return `released: ${name} ${heldBy === "lease" ? "deleted its leader key" : "closed its session"}`;
  return text(previous.reason);
}

/**
 * The elections a system counted between two of Baton's reads that Baton did not see (Kafka's
 * controller epoch moved further than the one change): null when none, or not known.
 */
export function describeMissedElections(details: Record<string, unknown> | null): string | null {
  const missed = count(details?.electionsMissed);
  if (missed === null || missed <= 0) return null;
  const counter = text(details?.electionCountName);
  return `${missed} election${missed === 1 ? "" : "s"} missed${counter === null ? "" : ` (${counter} ${count(details?.electionCount) ?? "?"})`}`;
}

function joinParts(parts: (string | null)[]): string | null {
  const present = parts.filter((part): part is string => part !== null);
  return present.length === 0 ? null : present.join(", ");
}

/** One short line for the board's cell: the kind's most telling details. */
export function summarizeKindDetails(kind: string, details: Record<string, unknown>): string | null {
  if (!isLockSourceKind(kind)) return null;
  switch (kind) {
    case "zookeeper": {
      // What the lock is to its system first ("Kafka controller", "HDFS NameNode ns1").
      const role = text(details.role);
      const session = text(details.holderSessionId);
      const node = text(details.holderNode);
      const sequence = node === null ? null : zookeeperSequence(node);
      const elections = count(details.electionCount);
      const counter = text(details.electionCountName);
      return joinParts([
        role,
        session ? `session ${session}` : null,
        sequence === null ? null : `seq ${sequence}`,
        elections === null || counter === null ? null : `${counter} ${elections}`,
      ]);
    }
    case "etcd": {
      // The lease as granted: what is left counts down in its own column, from the same expiry
      // (a reading of the last poll beside it said two different "left" figures).
      const granted = count(details.leaseGrantedTtlS) ?? count(details.leaseTtlS);
      const revision = count(details.modRevision) ?? count(details.createRevision);
      const standbys = Array.isArray(details.standbys) ? details.standbys.length : null;
      return joinParts([
        // What the lock is to its system first ("Patroni cluster batman").
        text(details.role),
        standbys === null ? null : `${standbys} standby${standbys === 1 ? "" : "s"}`,
        revision === null ? null : `rev ${revision}`,
        granted === null ? null : `lease ${granted} s`,
      ]);
    }
    case "redis": {
      if (details.redlock === true) {
        const masters = record(details.masters);
        const total = masters ? Object.keys(masters).length : null;
        const holding = count(details.holdingMasters);
        return `Redlock${holding !== null && total !== null ? ` ${holding}/${total} masters` : ""}`;
      }
      const reentrancy = count(details.reentrancy);
      return joinParts([text(details.layout), reentrancy !== null ? `held ${reentrancy}×` : null]);
    }
    case "dynamodb": {
      const version = text(details.recordVersionNumber);
      const lease = count(details.leaseDurationMs);
      return joinParts([
        version ? `version ${version.length > 13 ? `${version.slice(0, 8)}…` : version}` : null,
        lease === null ? null : `lease ${formatDuration(lease)}`,
        details.isReleased === true ? "released" : null,
      ]);
    }
    case "database": {
      // A MariaDB/MySQL GET_LOCK: how the server was read says what could be seen (waiters only through performance_schema).
      if (details.lockFunction === "GET_LOCK") {
        return joinParts(["GET_LOCK", details.readMode === "plugin" ? "no waiters seen (plugin)" : details.readMode === "names" ? "read by name" : null]);
      }
      const idleMs = count(details.idleInTransactionForMs);
      const shared = Array.isArray(details.sharedHolders) ? details.sharedHolders.length : 0;
      return joinParts([
        details.name === undefined ? null : `key ${text(details.key) ?? "?"}`,
        text(details.library),
        shared > 0 ? `shared with ${shared}` : null,
        idleMs === null ? null : `idle in transaction ${formatDuration(idleMs)}`,
      ]);
    }
    default:
      return null;
  }
}

/** A PostgreSQL advisory lock whose holder sits idle in a transaction past the configured bound: the classic stuck lock. */
export function isDatabaseHolderStuck(details: Record<string, unknown>): boolean {
  return details.isStuckIdleInTransaction === true;
}
