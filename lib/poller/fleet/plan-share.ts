// How many cluster leases one worker replica of a fleet should hold, and which to take or give
// back: the even spread of N clusters over W live replicas. Pure. Every cluster weighs the same:
// the first N mod W replicas (by id) hold ceil(N / W), the others floor(N / W), so that no
// replica idles while another holds more than its share.

export type SharePlan = {
  /** The most leases this replica should hold. */
  share: number;
  /** How many free leases to try to take now. */
  toTake: number;
  /** Held leases to hand back (after their current cycle), highest id first. */
  toGiveBack: number[];
};

/** This replica's share: floor(N / W), one more for the first N mod W replicas by id. */
export function shareOf(clusterCount: number, liveReplicas: readonly string[], replicaId: string): number {
  const sorted = [...new Set([...liveReplicas, replicaId])].sort();
  const rank = sorted.indexOf(replicaId);
  return Math.floor(clusterCount / sorted.length) + (rank < clusterCount % sorted.length ? 1 : 0);
}

export function planShare(input: { clusterIds: readonly number[]; held: readonly number[]; liveReplicas: readonly string[]; replicaId: string }): SharePlan {
  const share = shareOf(input.clusterIds.length, input.liveReplicas, input.replicaId);
  const held = [...input.held].sort((a, b) => b - a);
  const surplus = Math.max(0, held.length - share);
  return { share, toTake: Math.max(0, share - held.length), toGiveBack: held.slice(0, surplus) };
}

/**
 * The order in which this replica tries the free leases: every cluster it does not hold, starting
 * at an offset of its own, so that replicas starting together do not all try the same first.
 */
export function takeOrder(clusterIds: readonly number[], held: ReadonlySet<number>, replicaSeed: number): number[] {
  const free = [...clusterIds].filter((id) => !held.has(id)).sort((a, b) => a - b);
  if (free.length === 0) return [];
  const offset = Math.abs(replicaSeed) % free.length;
  return [...free.slice(offset), ...free.slice(0, offset)];
}

/** A 31-bit hash of a text (FNV-1a): the fleet's key from its clusters' names, a replica's seed from its id. */
export function hash31(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) & 0x7fffffff;
}

/** The fleet: the replicas configured with the same clusters (a hash of their names). */
export function fleetKeyOf(clusterNames: readonly string[]): number {
  return hash31([...clusterNames].sort().join("\u0000"));
}
