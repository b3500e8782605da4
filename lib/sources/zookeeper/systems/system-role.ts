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
  /**
   * Where the standbys register: each child of `path(lock)` named by `name(child)` (null: not a
   * standby). `isDataRead`: each standby's node data is read too (and the directory watched), for
   * the system's interpreter (Patroni's members: role, state, WAL position).
   */
  standbys?: { path(lockPath: string): string; name(child: string): string | null; isDataRead?: boolean };
  /** A node holding the system's own election count (Kafka's /controller_epoch): a decimal number. */
  electionCount?: { path(lockPath: string): string; name: string };
  /** Nodes beside the lock the system writes of its elections (Patroni's failover and history), by name: read and watched with it. */
  sideNodes?(lockPath: string): Record<string, string>;
  /**
   * What the system makes of its reads beyond the holder: one interpreter per source (it may
   * remember earlier reads, as Patroni's tells a switchover by a failover request seen before its
   * leader node went). Called once per successful read of each lock, in order.
   */
  createInterpreter?(): SystemInterpreter;
};

/** A node beside the lock as read: null when it does not exist. */
export type SideNode = { data: Buffer | null; mzxid: string | null } | null;

/** One read of a lock node with what the system keeps beside it, for its interpreter. */
export type SystemReading = {
  lockPath: string;
  /** The hold as the read found it (its token: session and creation zxid); null when free. */
  hold: { holder: string; token: string; czxid: string; expiresAt: string | null } | null;
  /** Each standby's name and node data (null: the node went between listing and reading); null when not read. */
  standbys: { name: string; data: Buffer | null }[] | null;
  sideNodes: Record<string, SideNode>;
  observedAt: string;
};

/** What a system's interpreter adds to the observation. */
export type SystemView = {
  /** Who would take over, first to last (replaces the standbys in name order). */
  waiters?: string[];
  /** Merged into the observation's details. */
  details: Record<string, unknown>;
  /** How the previous hold ended, where the system's own records tell (a switchover is a release). */
  previousEnding?: "RELEASED" | "EXPIRED";
};

export type SystemInterpreter = (reading: SystemReading) => SystemView;

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
