import { type PatroniRequest, rankPatroniStandbys, readPatroniHistory, readPatroniMember, readPatroniRequest } from "@/lib/sources/patroni-members";

import type { SideNode, SystemInterpreter, SystemReading, SystemView } from "./system-role";

// What Patroni keeps beside its leader node on ZooKeeper (dcs/zookeeper.py), read for the lock
// page and to tell how a primary's hold ended. Pure, but for the interpreter's memory.
//   <scope>/members/<name>  ephemeral, JSON (role, state, conn_url, api_url, timeline, xlog_location...)
//   <scope>/failover        persistent: {"leader":"pg0","member":"pg1"} while a switchover is asked
//                           for, set back to {} once the new primary is in
//   <scope>/history         persistent: JSON list of [timeline, LSN, reason, timestamp, new leader]
// Patroni lets go of the leader node by restarting its Kazoo client: the session closes, and the
// leader and member nodes go with it (a release: before the session's deadline). A primary whose
// Patroni died keeps both until the server expires its session (`ttl`).

/** A pending request and the zxid of the `failover` node's last write (a read told apart from an older one). */
export type FailoverRequest = PatroniRequest & { mzxid: bigint | null };

export type PatroniEnding = {
  /** The member that led. */
  leader: string;
  kind: "switchover" | "failover" | "released";
  ending: "RELEASED" | "EXPIRED" | null;
  /** For people: "switchover to pg1 requested", "failover: pg1's ZooKeeper session expired"... */
  reason: string;
};

const textOf = (data: Buffer | null | undefined): string | null => (data == null ? null : data.toString("utf8"));

/** The request the `failover` node holds; null for `{}` (none pending), no node, or data Patroni would not write. */
export function toFailoverRequest(node: SideNode): FailoverRequest | null {
  if (node === null) return null;
  const request = readPatroniRequest(textOf(node.data));
  return request === null ? null : { ...request, mzxid: node.mzxid === null ? null : BigInt(node.mzxid) };
}

/**
 * How a primary's hold ended. Gone at or after its session's deadline: the session expired (its
 * Patroni died or was cut off). Before it, a switchover where a failover request naming it (or
 * naming no leader) was written after its leader node was created and before the next one, or
 * where the next primary cleared a request as it took over (Patroni writes `{}` right after
 * acquiring the leader node when one was pending: a read that came after both still tells);
 * otherwise Patroni closed its session (stopped, or PostgreSQL demoted).
 */
export function describeEnding(
  leader: { name: string; czxid: bigint; expiresAtMs: number | null },
  endedAtMs: number,
  request: FailoverRequest | null,
  next: { name: string; czxid: bigint; isRequestCleared: boolean } | null,
): PatroniEnding {
  const isExpired = leader.expiresAtMs !== null && endedAtMs >= leader.expiresAtMs;
  if (isExpired) return { leader: leader.name, kind: "failover", ending: "EXPIRED", reason: `failover: ${leader.name}'s ZooKeeper session expired` };
  const isAsked =
    request !== null &&
    (request.leader === null || request.leader === leader.name) &&
    (request.mzxid === null || (request.mzxid > leader.czxid && (next === null || request.mzxid < next.czxid)));
  if (isAsked) {
    const kind = request.leader === null ? "failover" : "switchover";
    return { leader: leader.name, kind, ending: "RELEASED", reason: `${kind} ${request.member ? `to ${request.member} ` : ""}requested` };
  }
  if (next?.isRequestCleared)
    return { leader: leader.name, kind: "switchover", ending: "RELEASED", reason: `switchover to ${next.name} requested (cleared as ${next.name} took over)` };
  return {
    leader: leader.name,
    kind: "released",
    ending: leader.expiresAtMs === null ? null : "RELEASED",
    reason: `${leader.name} closed its ZooKeeper session (Patroni stopped, or PostgreSQL demoted)`,
  };
}

type ClusterMemory = {
  leader: { name: string; token: string; czxid: bigint; expiresAtMs: number | null } | null;
  /** The latest failover request seen, and the zxid it is known as of (an older read does not undo a newer one). */
  request: FailoverRequest | null;
  requestAsOf: bigint;
  /** How the last primary's hold ended, and the token of the hold after it (null: free since). */
  ending: (PatroniEnding & { followedBy: string | null }) | null;
};

/** Patroni's cluster on ZooKeeper as one read shows it: its members, lag, pending request, history, and how the last primary went. */
export function createPatroniInterpreter(scopeOf: (lockPath: string) => string): SystemInterpreter {
  const clusters = new Map<string, ClusterMemory>();
  return (reading: SystemReading): SystemView => {
    let memory = clusters.get(reading.lockPath);
    if (!memory) {
      memory = { leader: null, request: null, requestAsOf: -1n, ending: null };
      clusters.set(reading.lockPath, memory);
    }
    const failoverNode = reading.sideNodes.failover ?? null;
    const request = toFailoverRequest(failoverNode);
    const asOf = failoverNode?.mzxid == null ? null : BigInt(failoverNode.mzxid);
    const isNewer = asOf === null || asOf >= memory.requestAsOf;
    const hold = reading.hold;
    // The hold ended (gone, or another node): described with the request as last known, a
    // pending one read now included (its `{}` comes only once the new primary is in).
    if (memory.leader !== null && memory.leader.token !== hold?.token) {
      const known = isNewer && request !== null ? request : memory.request;
      const czxid = hold === null ? null : BigInt(hold.czxid);
      // `{}` written after the next leader node's creation, and after any read of it before.
      const isRequestCleared = czxid !== null && asOf !== null && asOf > czxid && asOf > memory.requestAsOf && request === null;
      const next = hold === null || czxid === null ? null : { name: hold.holder, czxid, isRequestCleared };
      const ending = describeEnding(memory.leader, Date.parse(reading.observedAt), known, next);
      memory.ending = { ...ending, followedBy: hold?.token ?? null };
      memory.leader = null;
      memory.request = null;
    }
    if (isNewer) {
      memory.request = request;
      if (asOf !== null) memory.requestAsOf = asOf;
    }
    if (hold !== null) {
      if (memory.ending !== null && memory.ending.followedBy === null && memory.leader === null) memory.ending.followedBy = hold.token;
      memory.leader = {
        name: hold.holder,
        token: hold.token,
        czxid: BigInt(hold.czxid),
        expiresAtMs: hold.expiresAt === null ? null : Date.parse(hold.expiresAt),
      };
    }

    const members = (reading.standbys ?? []).map(({ name, data }) => readPatroniMember(name, textOf(data)));
    const pending = memory.request;
    const { primary, standbys, lagBytes, candidates } = rankPatroniStandbys(members, hold?.holder ?? null, pending?.member ?? null);
    const ending = memory.ending !== null && memory.ending.followedBy === (hold?.token ?? null) ? memory.ending : null;
    return {
      waiters: candidates.map((member) => member.name),
      ...(ending?.kind === "switchover" ? { previousEnding: "RELEASED" as const } : {}),
      details: {
        scope: scopeOf(reading.lockPath),
        standbyMembers: standbys.map(({ name, role, state, timeline, isNoFailover, isUnreadable }) => ({
          name,
          role,
          state,
          timeline,
          isNoFailover,
          isUnreadable,
        })),
        lagBytes: Object.fromEntries(lagBytes),
        failover: pending && { leader: pending.leader, member: pending.member, scheduledAt: pending.scheduledAt },
        // How the last primary's hold ended: on a free cluster the one that just ended, on a held
        // one the one this primary followed.
        previousPrimary: ending && { name: ending.leader, kind: ending.kind, ending: ending.ending, reason: ending.reason },
        history: readPatroniHistory(textOf(reading.sideNodes.history?.data)),
        primary: primary ? { role: primary.role, state: primary.state, timeline: primary.timeline, apiUrl: primary.apiUrl } : null,
        timeline: primary?.timeline ?? null,
        xlogLocation: primary?.xlogLocation ?? null,
      },
    };
  };
}
