import type { HoldObservation } from "@/lib/poller/contract/hold-observation";

import { type Contender, nameContender, orderContenders } from "./recipe-layout";
import type { SessionDump } from "./session-dump";
import type { ZookeeperRecipe } from "./zookeeper-config";
import type { ZnodeStat } from "./zookeeper-connection";

// One read of one lock node -> the observation the shared hold cycles compare. Pure.

export type ContenderReading = { data: Buffer | null; stat: ZnodeStat } | null;

export type LockReading = {
  path: string;
  pattern: string;
  recipe: ZookeeperRecipe;
  /** Where the contenders are: the lock node, or a semaphore mutex's `leases` under it. */
  contenderDir: string;
  /** The contender node's children; null when the node itself does not exist (a free lock whose node was cleaned up). */
  children: string[] | null;
  /** What getData answered for each child read (null: it went between getChildren and getData). */
  contenders: Map<string, ContenderReading>;
  /** When the last answer of this lock's reads arrived. */
  observedAt: string;
};

export type SessionFacts = {
  /** The server's `dump`, when it answers it. */
  dump: SessionDump | null;
  /** Baton's own negotiated session timeout: the server's clamp shows in it (2..20 x tickTime). */
  batonSessionTimeoutMs: number | null;
};

function nameOf(contender: Contender, reading: ContenderReading | undefined): string {
  return nameContender(contender, reading?.data ?? null);
}

/**
 * The holder is the lowest sequence whose node still exists; the waiters are the other
 * contenders in order. holderToken = the holder node's session and name, so the same
 * participant back with a new session (a new node) reads as another hold. expiresAt is the
 * holder session's deadline when the server's `dump` tells it (a live session's deadline moves on
 * with every heartbeat; a dead one's stays until the node goes).
 */
export function toLockObservation(reading: LockReading, sessions: SessionFacts): HoldObservation {
  const queue = orderContenders(reading.children ?? [], reading.recipe);
  // A child that vanished between the two reads is neither holder nor waiter any more.
  const present = queue.contenders.filter((c) => reading.contenders.get(c.name) !== null);
  const [holderNode, ...waiting] = present;
  const holderReading = holderNode ? reading.contenders.get(holderNode.name) : undefined;
  const holderSession = holderReading?.stat.ephemeralOwner ?? null;
  const deadline = holderSession !== null ? (sessions.dump?.deadlines.get(holderSession) ?? null) : null;
  const observedMs = Date.parse(reading.observedAt);
  return {
    resourceKey: reading.path,
    pattern: reading.pattern,
    holder: holderNode ? nameOf(holderNode, holderReading) : null,
    holderToken: holderNode ? (holderSession ? `${holderSession}/${holderNode.name}` : holderNode.name) : null,
    expiresAt: deadline === null ? null : new Date(deadline).toISOString(),
    ttlMs: deadline === null ? null : Math.max(0, deadline - observedMs),
    waiters: waiting.map((c) => nameOf(c, reading.contenders.get(c.name))),
    observedAt: reading.observedAt,
    isSplit: false,
    // `dump` prints deadlines in whole seconds.
    isExpiryCoarse: true,
    details: {
      recipe: queue.recipe,
      lockNodeExists: reading.children !== null,
      contenderDir: reading.contenderDir,
      holderNode: holderNode?.name ?? null,
      holderSessionId: holderSession,
      holderNodeCreatedAt: holderReading ? new Date(holderReading.stat.ctimeMs).toISOString() : null,
      holderNodeCzxid: holderReading?.stat.czxid ?? null,
      // Whether the holder's session deadline came from the server (`dump`) or is unknown.
      sessionExpiry: holderSession === null ? null : deadline !== null ? "server dump" : sessions.dump ? "session not listed" : "unknown (dump not allowed)",
      waiterNodes: waiting.map((c) => ({ node: c.name, session: reading.contenders.get(c.name)?.stat.ephemeralOwner ?? null })),
      otherChildren: queue.others,
      batonSessionTimeoutMs: sessions.batonSessionTimeoutMs,
    },
  };
}
