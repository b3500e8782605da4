import type { FailoverRequest } from "./patroni-layout";

// How a Patroni primary's hold ended, in Patroni's own terms, from the keys the watch saw in
// order: a `failover` request ({"leader":"pg0","member":"pg1"}) written while pg0 led and before
// its leader key's delete is a planned switchover; a leader key gone with its lease at the lease's
// end is a failover (the primary's Patroni stopped renewing: crashed, cut off); a leader key
// deleted by Patroni while its lease lived, with no request, is the primary letting go (Patroni
// stopped with SIGTERM, or PostgreSQL demoted). The `failover` key is set back to {} once the new
// leader is in, so only the order of the watch's events tells it: a read sees the request only
// while it is pending.

export type PatroniEndingKind = "switchover" | "failover" | "released";

export type PatroniEnding = {
  /** The member that led. */
  leader: string;
  kind: PatroniEndingKind;
  ending: "RELEASED" | "EXPIRED";
  /** For people: "switchover to pg1 requested", "failover: pg0's lease expired"... */
  reason: string;
  /** The revision of the leader key's delete. */
  revision: number;
};

export type PatroniMemory = {
  /** The leader key as a read or a watch PUT found it. */
  noteLeader(resourceKey: string, name: string, createRevision: number): void;
  /** The `failover` key as a read or a watch event found it at `asOfRevision` (null: `{}` or deleted). */
  noteFailover(resourceKey: string, request: FailoverRequest | null, asOfRevision: number): void;
  /** The leader key was deleted at `revision`; `ending` as its lease tells. Null when no leader was known. */
  endLeader(resourceKey: string, revision: number, ending: "RELEASED" | "EXPIRED"): PatroniEnding | null;
  /** The ending that led to the hold created at `createRevision` (null: the cluster is free), if Baton saw it. */
  endingBefore(resourceKey: string, createRevision: number | null): PatroniEnding | null;
  /** The watch lost events: what it knew of the order no longer holds. */
  forget(): void;
};

type ClusterMemory = {
  leader: { name: string; createRevision: number } | null;
  request: FailoverRequest | null;
  /** The revision `request` is known as of: an older read does not undo what the watch saw since. */
  requestAsOf: number;
  ending: (PatroniEnding & { followedBy: number | null }) | null;
};

/** Describes a leader key's delete; pure. */
export function describeEnding(
  leader: string,
  revision: number,
  ending: "RELEASED" | "EXPIRED",
  request: FailoverRequest | null,
  leaderSince: number,
): PatroniEnding {
  const isAsked =
    request !== null && request.modRevision > leaderSince && request.modRevision < revision && (request.leader === null || request.leader === leader);
  if (isAsked && ending === "RELEASED") {
    const kind = request.leader === null ? "failover" : "switchover";
    return { leader, kind, ending, revision, reason: `${kind} ${request.member ? `to ${request.member} ` : ""}requested` };
  }
  if (ending === "EXPIRED") return { leader, kind: "failover", ending, revision, reason: `failover: ${leader}'s lease expired` };
  return { leader, kind: "released", ending, revision, reason: `${leader} deleted its leader key (Patroni stopped, or PostgreSQL demoted)` };
}

export function createPatroniMemory(): PatroniMemory {
  const clusters = new Map<string, ClusterMemory>();
  const of = (resourceKey: string): ClusterMemory => {
    let memory = clusters.get(resourceKey);
    if (!memory) {
      memory = { leader: null, request: null, requestAsOf: 0, ending: null };
      clusters.set(resourceKey, memory);
    }
    return memory;
  };
  return {
    noteLeader(resourceKey, name, createRevision) {
      const memory = of(resourceKey);
      // A read answered before a delete the watch already delivered shows a leader that is gone.
      if ((memory.ending && createRevision <= memory.ending.revision) || (memory.leader && createRevision < memory.leader.createRevision)) return;
      memory.leader = { name, createRevision };
      if (memory.ending && memory.ending.followedBy === null && createRevision > memory.ending.revision) memory.ending.followedBy = createRevision;
    },
    noteFailover(resourceKey, request, asOfRevision) {
      const memory = of(resourceKey);
      if (asOfRevision < memory.requestAsOf) return;
      // `{}` after a switchover clears the request; the ending already took it.
      memory.request = request;
      memory.requestAsOf = asOfRevision;
    },
    endLeader(resourceKey, revision, ending) {
      const memory = of(resourceKey);
      if (!memory.leader) return null;
      const described = describeEnding(memory.leader.name, revision, ending, memory.request, memory.leader.createRevision);
      memory.ending = { ...described, followedBy: null };
      memory.leader = null;
      return described;
    },
    endingBefore(resourceKey, createRevision) {
      const ending = clusters.get(resourceKey)?.ending;
      if (!ending) return null;
      const isIt = createRevision === null ? ending.followedBy === null : ending.followedBy === createRevision;
      if (!isIt) return null;
      const { followedBy: _followedBy, ...shown } = ending;
      return shown;
    },
    forget: () => clusters.clear(),
  };
}
