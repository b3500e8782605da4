// The lock a counter event names: "<cluster>/<lock key>". Client-safe and pure.

export type LockRef = { cluster: string; key: string };

const CLUSTER_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/i;

/** The cluster (up to the first "/", a cluster name) and the lock key (the rest, which may hold "/"); null when it is not one. */
export function parseLockRef(text: string): LockRef | null {
  const slash = text.indexOf("/");
  if (slash <= 0 || slash === text.length - 1) return null;
  const cluster = text.slice(0, slash);
  return CLUSTER_NAME.test(cluster) ? { cluster, key: text.slice(slash + 1) } : null;
}

export function formatLockRef(ref: LockRef): string {
  return `${ref.cluster}/${ref.key}`;
}
