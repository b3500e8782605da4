// What every kind's panel gets: the hold's own details and what the page counts down from.

export type KindDetailsProps = {
  details: Record<string, unknown>;
  /** The hold's waiters in queue order (the panels add what the kind knows of each). */
  waiters: string[];
  /** When the hold ends unless renewed (a ZooKeeper session's deadline, an etcd lease's end). */
  expiresAt: string | null;
  /** When the poller last read the hold: past the expiry, the time left is told from that read. */
  lastReadAt: string | null;
  nowMs: number;
  isStale: boolean;
};
