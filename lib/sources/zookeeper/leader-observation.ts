import type { HoldObservation } from "@/lib/poller/contract/hold-observation";

import { readableData } from "./recipe-layout";
import type { SessionFacts } from "./lock-observation";
import type { SideNode, SystemRole } from "./systems/system-role";
import type { ZnodeStat } from "./zookeeper-connection";

// One read of a node that is itself the lock (Kafka's /controller, HBase's /hbase/master, a ZKFC's
// ActiveStandbyElectorLock, Patroni's leader...) -> the observation the shared hold cycles
// compare. Pure. Held while the node exists; its holder is what its data names; its token is the
// owning session and the node's creation zxid, so a member elected again (a new node, even on the
// same session) is a new hold.

export type LeaderNodeReading = {
  path: string;
  pattern: string;
  /** The node's data and stat; null when it does not exist (free). */
  node: { data: Buffer | null; stat: ZnodeStat } | null;
  /** The standbys' names as the system registers them (null: not read, or the system names none). */
  standbys: string[] | null;
  /** Each standby's node data, where the system reads them (its interpreter's). */
  standbyNodes?: { name: string; data: Buffer | null }[] | null;
  /** The system's side nodes by name (Patroni's failover, history), for its interpreter. */
  sideNodes?: Record<string, SideNode>;
  /** The system's own election count, when it keeps one and it could be read. */
  electionCount: number | null;
  observedAt: string;
};

/** Why a node's data names no holder: the one line the source logs (once per hold). */
export type HolderReadFailure = { path: string; message: string };

function readHolder(
  data: Buffer | null,
  role: SystemRole | null,
): { parsed: { holder: string; fields: Record<string, unknown> } | null; error: string | null } {
  if (role?.parseHolder === undefined) {
    const text = readableData(data);
    if (text !== null) return { parsed: { holder: text, fields: {} }, error: null };
    if (data === null || data.length === 0) return { parsed: null, error: null };
    return { parsed: null, error: `its ${data.length} bytes of data are not text` };
  }
  if (data === null || data.length === 0) return { parsed: null, error: "it holds no data" };
  try {
    return { parsed: role.parseHolder(data), error: null };
  } catch (error) {
    return { parsed: null, error: `${(error as Error).message} (${data.length} bytes)` };
  }
}

export function toLeaderNodeObservation(
  reading: LeaderNodeReading,
  sessions: SessionFacts,
  role: SystemRole | null,
): { observation: HoldObservation; failure: HolderReadFailure | null } {
  const node = reading.node;
  const session = node?.stat.ephemeralOwner ?? null;
  const deadline = session !== null ? (sessions.dump?.deadlines.get(session) ?? null) : null;
  const { parsed, error } = node === null ? { parsed: null, error: null } : readHolder(node.data, role);
  // A node whose data names nobody is still held: by its session (or, persistent, by the node).
  const holder = node === null ? null : (parsed?.holder ?? session ?? `node ${node.stat.czxid}`);
  const standbys = (reading.standbys ?? []).filter((name) => name !== holder);
  const observation: HoldObservation = {
    resourceKey: reading.path,
    pattern: reading.pattern,
    holder,
    holderToken: node === null ? null : session === null ? node.stat.czxid : `${session}/${node.stat.czxid}`,
    expiresAt: deadline === null ? null : new Date(deadline).toISOString(),
    ttlMs: deadline === null ? null : Math.max(0, deadline - Date.parse(reading.observedAt)),
    // Standbys race for the node when it goes: they are no queue, but they are who could take it.
    waiters: standbys,
    observedAt: reading.observedAt,
    isSplit: false,
    isExpiryCoarse: true,
    details: {
      recipe: "ephemeral-node",
      ...(role === null ? {} : { system: role.system, role: role.describe(reading.path) }),
      lockNodeExists: node !== null,
      holderSessionId: session,
      holderNodeCreatedAt: node === null ? null : new Date(node.stat.ctimeMs).toISOString(),
      holderNodeCzxid: node?.stat.czxid ?? null,
      sessionExpiry: session === null ? null : deadline !== null ? "server dump" : sessions.dump ? "session not listed" : "unknown (dump not allowed)",
      ...(parsed !== null && Object.keys(parsed.fields).length > 0 ? { holderData: parsed.fields } : {}),
      ...(error === null ? {} : { holderDataUnread: error }),
      ...(reading.standbys === null ? {} : { standbys }),
      ...(role?.electionCount === undefined ? {} : { electionCount: reading.electionCount, electionCountName: role.electionCount.name }),
      batonSessionTimeoutMs: sessions.batonSessionTimeoutMs,
    },
  };
  return { observation, failure: error === null ? null : { path: reading.path, message: error } };
}

/** The system's election count at the last read of a lock, and the elections it counted that Baton did not see. */
export type ElectionTally = { token: string | null; count: number | null; missed: number | null };

/**
 * The elections Baton did not see, from the system's own count (Kafka's controller epoch): each
 * new holder is one election; where the count moved further between two reads, holders came and
 * went in between. Kept for the whole hold (or free spell), so its details stay the same from read
 * to read; a free spell during which the count moved adds to it.
 */
export function tallyElections(before: ElectionTally | undefined, token: string | null, count: number | null): ElectionTally {
  if (before === undefined) return { token, count, missed: null };
  const moved = count === null || before.count === null ? null : count - before.count;
  if (token === before.token)
    return { token, count: count ?? before.count, missed: moved === null || moved <= 0 ? before.missed : (before.missed ?? 0) + moved };
  return { token, count, missed: moved === null ? null : Math.max(0, moved - (token === null ? 0 : 1)) };
}
