import type { ZookeeperConnection } from "./zookeeper-connection";

// Reads of nodes that have not changed since Baton last read them, answered from memory. Every
// read sent from here arms a watch, and its answer is kept until that watch fires: ZooKeeper
// promises that a client which set a watch hears of the node's next change before it sees
// anything that came after it. Kept per connection: past a disconnect (or on a new session, whose
// watches are gone) nothing is known, and the reads go to the server again; the source reads every
// lock then anyway. A leader node's read (the node, its standbys and their data, a system's side
// nodes and count) costs nothing while none of them changed (tests/bench/zookeeper-locks.ts).
//
// An answer from memory has asked the server nothing: a read of many locks that used one asks
// the server once (confirm), so that a server which stopped answering (paused, cut off) still
// fails the read, its locks stale, as it did without them.

type Watch = (event: { path: string; type: string }) => void;
type NodeRead = Awaited<ReturnType<ZookeeperConnection["getData"]>>;

type Kept<T> = { value: T; connection: number; watches: Set<Watch | null> };

export type WatchedReads = {
  /**
   * The node's data and stat, or null when it does not exist: `getData` with a watch (it fires when
   * the node is rewritten or deleted), and for a node that is not there `exists` with one (it fires
   * when the node is created); a node created between the two is read after all.
   */
  readNode(path: string, watch?: Watch): Promise<NodeRead>;
  /** The children of `path` (null when it does not exist), with a child watch. */
  getChildren(path: string, watch?: Watch): Promise<string[] | null>;
  /** Reads answered from memory so far (it only grows). */
  hitCount(): number;
  /** One request to the server; throws when it does not answer. */
  confirm(): Promise<void>;
};

export function createWatchedReads(connection: ZookeeperConnection): WatchedReads {
  const kept = new Map<string, Kept<unknown>>();
  /** Per path, the watch events seen so far: an answer is not kept when one came while it was asked. */
  const changes = new Map<string, number>();
  /** One function per caller's watch (and one for none), so that the client keeps one registration per node. */
  const composites = new Map<Watch | null, Watch>();
  let hits = 0;
  /** The connection what is kept was read on: a new one drops it all (nodes no longer read included). */
  let keptOn: number | null = null;

  function forget(path: string): void {
    changes.set(path, (changes.get(path) ?? 0) + 1);
    kept.delete(`node ${path}`);
    kept.delete(`children ${path}`);
  }

  function compositeOf(watch: Watch | null): Watch {
    let composite = composites.get(watch);
    if (composite === undefined) {
      composite = (event) => {
        forget(event.path);
        watch?.(event);
      };
      composites.set(watch, composite);
    }
    return composite;
  }

  async function read<T>(
    op: "node" | "children",
    path: string,
    watch: Watch | undefined,
    send: (composite: Watch) => Promise<T>,
    isKept: (value: T) => boolean,
  ): Promise<T> {
    const key = `${op} ${path}`;
    const caller = watch ?? null;
    const current = connection.connectionNumber();
    if (current !== null && current !== keptOn) {
      kept.clear();
      changes.clear();
      keptOn = current;
    }
    const entry = kept.get(key) as Kept<T> | undefined;
    // The caller's own watch is armed too if the read kept asked for the same one.
    if (entry !== undefined && current !== null && entry.connection === current && entry.watches.has(caller)) {
      hits += 1;
      return entry.value;
    }
    const changesBefore = changes.get(path) ?? 0;
    const value = await send(compositeOf(caller));
    // The client runs the watches of a change that followed the answer before this continues: one
    // that ran means the answer is already old.
    const isUnchanged = (changes.get(path) ?? 0) === changesBefore;
    if (isKept(value) && isUnchanged && current !== null && connection.connectionNumber() === current) {
      const previous = kept.get(key);
      const watches = previous !== undefined && previous.connection === current ? previous.watches : new Set<Watch | null>();
      kept.set(key, { value, connection: current, watches: watches.add(caller) });
    }
    return value;
  }

  return {
    readNode: (path, watch) =>
      read(
        "node",
        path,
        watch,
        async (composite) => {
          const node = await connection.getData(path, composite);
          if (node !== null) return node;
          return (await connection.exists(path, composite)) === null ? null : connection.getData(path, composite);
        },
        () => true,
      ),
    getChildren: (path, watch) =>
      read(
        "children",
        path,
        watch,
        (composite) => connection.getChildren(path, composite),
        // A directory that does not exist arms no child watch.
        (children) => children !== null,
      ),
    hitCount: () => hits,
    async confirm() {
      await connection.exists("/");
    },
  };
}
