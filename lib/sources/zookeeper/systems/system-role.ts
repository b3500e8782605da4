import type { ZookeeperRecipe } from "../zookeeper-recipe";

// What a system (Kafka, HDFS, Helix...) adds to a lock node Baton reads: what to call it, how to
// read its holder from the node's data, where its standbys register, and what the system counts
// of its own elections. Each system is one file beside this one; systems.ts lists them.

/** A holder read from a leader node's data, in the system's own words. */
export type ParsedHolder = {
  /** The holder as the system names it: "broker 2", "nn1 at host:8020", "pg1". */
  holder: string;
  /** The fields of the data Baton read (the system's names), for the lock page. */
  fields: Record<string, unknown>;
};

export type SystemRole = {
  /** The system's name in the configuration ("kafka"). */
  system: string;
  /** What the lock is to the system, for one lock path: "Kafka controller", "HDFS NameNode ns1". */
  describe(path: string): string;
  /**
   * The holder as the node's data names it. Throws (any error, one line) when the data is not what
   * the system writes: the hold is kept, named by its session, and the failure logged once.
   */
  parseHolder?(data: Buffer): ParsedHolder;
  /** Where the standbys register: each child of `path(lock)` named by `name(child)` (null: not a standby). */
  standbys?: { path(lockPath: string): string; name(child: string): string | null };
  /** A node holding the system's own election count (Kafka's /controller_epoch): a decimal number. */
  electionCount?: { path(lockPath: string): string; name: string };
};

/**
 * One kind of lock node a configuration watches: a configured path, or a path pattern a system
 * names (`*` stands for one segment: a nameservice, a Patroni scope, a Solr collection).
 */
export type LockTarget = {
  pattern: string;
  recipe: ZookeeperRecipe;
  mustBeHeld: boolean;
  role: SystemRole | null;
};
