import type { HoldReadError, LockRef } from "@/lib/poller/contract/hold-source";

import type { LeaderNodeReading } from "./leader-observation";
import type { SideNode, SystemRole } from "./systems/system-role";
import { readEachRef } from "./read-each-ref";
import type { WatchedReads } from "./watched-reads";
import { joinPath, parentOf } from "./znode-path";
import type { ZookeeperConnection } from "./zookeeper-connection";

// One read of nodes that are themselves the lock: the node (`getData` with a watch, which fires
// when it is rewritten or deleted; `exists` with one for a node not there yet, which fires when it
// is created), with the system's standbys (getChildren, and the data of each where the system
// reads them), its side nodes and its own election count beside. Every node read is watched and
// its answer kept until its watch fires (watched-reads.ts): a lock none of whose nodes changed is
// read from memory, and the server is asked once for the whole read. A node deleted between two
// reads is free: its watch has fired, and the next read says so.

export type LeaderReadOptions = {
  roleOf: (ref: LockRef) => SystemRole | null;
  /** Armed on the lock node, and on the side nodes and read standbys' directory of a system that has them. */
  watch?: (event: { path: string; type: string }) => void;
};

/** Reads of the node between two equal counts, at most. */
const MAX_COUNT_READS = 3;

function parseCount(data: Buffer | null): number | null {
  const text = data?.toString("utf8").trim() ?? "";
  return /^\d+$/.test(text) ? Number(text) : null;
}

/**
 * A system's side nodes, each watched also while it does not exist (Patroni creates its failover
 * node at the first switchover): the directories holding them are listed with a child watch (it
 * fires when one is created or deleted), and only the nodes listed are read (with a data watch).
 * A side node that is absent, as Patroni's failover is between switchovers, costs no request of
 * its own, where reading it would cost two (`getData`, then `exists` for the watch).
 */
async function readSideNodes(reads: WatchedReads, sidePaths: [string, string][], watch: LeaderReadOptions["watch"]): Promise<(readonly [string, SideNode])[]> {
  const directories = [...new Set(sidePaths.map(([, path]) => parentOf(path)))];
  const listings = new Map(await Promise.all(directories.map(async (directory) => [directory, await reads.getChildren(directory, watch)] as const)));
  return Promise.all(
    sidePaths.map(async ([name, path]) => {
      const listed = listings.get(parentOf(path));
      if (listed === null || listed === undefined || !listed.includes(path.slice(path.lastIndexOf("/") + 1))) return [name, null] as const;
      const side = await reads.readNode(path, watch);
      return [name, side === null ? null : { data: side.data, mzxid: side.stat.mzxid ?? null }] as const;
    }),
  );
}

export async function readLeaderNodes(
  connection: ZookeeperConnection,
  reads: WatchedReads,
  refs: LockRef[],
  options: LeaderReadOptions,
): Promise<{ readings: LeaderNodeReading[]; errors: HoldReadError[] }> {
  async function readOne(ref: LockRef): Promise<LeaderNodeReading> {
    const role = options.roleOf(ref);
    const standbysPath = role?.standbys?.path(ref.key);
    const isStandbyDataRead = role?.standbys?.isDataRead === true;
    const sidePaths = Object.entries(role?.sideNodes?.(ref.key) ?? {});
    const countPath = role?.electionCount?.path(ref.key);
    const readCount = async () => (countPath === undefined ? null : parseCount((await reads.readNode(countPath))?.data ?? null));
    // The node and the system's count are read between two reads of the count: an election
    // between them (Kafka writes its controller node and epoch in one transaction) would pair a
    // holder with a count that is not its own, and the tally would call a seen election missed.
    let count: number | null = null;
    let node: Awaited<ReturnType<WatchedReads["readNode"]>> = null;
    let children: string[] | null = null;
    for (let attempt = 0; attempt < MAX_COUNT_READS; attempt++) {
      const before = await readCount();
      [node, children] = await Promise.all([
        reads.readNode(ref.key, options.watch),
        // Watched either way (for what is kept); a change brings a read only where the system reads its standbys' data.
        standbysPath === undefined ? null : reads.getChildren(standbysPath, isStandbyDataRead ? options.watch : undefined),
      ]);
      count = await readCount();
      if (count === before) break;
      // Still moving after the last try: no count this time (the tally waits for the next read).
      if (attempt === MAX_COUNT_READS - 1) count = null;
    }
    const named =
      children === null
        ? null
        : children
            .flatMap((child) => {
              const name = role?.standbys?.name(child) ?? null;
              return name === null ? [] : [{ child, name }];
            })
            .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const [standbyNodes, sides] = await Promise.all([
      // A standby that went between the listing and its read is listed with no data.
      named === null || standbysPath === undefined || !isStandbyDataRead
        ? null
        : Promise.all(named.map(async ({ child, name }) => ({ name, data: (await reads.readNode(joinPath(standbysPath, child)))?.data ?? null }))),
      readSideNodes(reads, sidePaths, options.watch),
    ]);
    return {
      path: ref.key,
      pattern: ref.pattern,
      node,
      standbys: named === null ? null : named.map(({ name }) => name),
      standbyNodes,
      sideNodes: Object.fromEntries(sides),
      electionCount: count,
      observedAt: new Date().toISOString(),
    };
  }
  const hitsBefore = reads.hitCount();
  const result = await readEachRef(connection, refs, readOne);
  if (reads.hitCount() === hitsBefore) return result;
  // Some answers came from memory: the server must still answer for them to count.
  try {
    await reads.confirm();
  } catch (error) {
    const message = (error as Error).message;
    return { readings: [], errors: [{ message }, ...refs.map((ref) => ({ key: ref.key, message }))] };
  }
  return result;
}
