import type { RedisClusterConfig } from "./redis-config";
import { globToRegExp } from "./redis-glob";

// A Redlock group reads every pattern on every one of its masters: the holder is the token a
// majority agrees on. Keys that live on one master only (a plain SET NX lock on one of them) need
// a cluster object of their own, pointing at that master, with patterns the group's do not match.
// Where a group's pattern matches them too, the group reads them as Redlock splits (one master of
// three holds a token: no majority) and both objects claim the same keys. Pure.

type Named = Pick<RedisClusterConfig, "name" | "url" | "urls" | "patterns">;

/** A master as host:port/db, so that two spellings of one server compare equal. */
function masterOf(url: string): string {
  const parsed = new URL(url);
  const db = parsed.pathname.replace(/^\//, "") || "0";
  return `${parsed.hostname}:${parsed.port || "6379"}/${db}`;
}

/** Whether two globs can match one key, as far as telling: one's text matches the other's glob. */
function canOverlap(a: string, b: string): boolean {
  return a === b || globToRegExp(a).test(b) || globToRegExp(b).test(a);
}

/** One line per single-master object whose keys a Redlock group over that master would also read. */
export function findRedlockOverlaps(configs: Named[]): string[] {
  const conflicts: string[] = [];
  const groups = configs.filter((config) => config.urls !== undefined);
  for (const single of configs) {
    if (single.url === undefined) continue;
    const master = masterOf(single.url);
    for (const group of groups) {
      if (!group.urls!.some((url) => masterOf(url) === master)) continue;
      for (const own of single.patterns) {
        const shared = group.patterns.find((pattern) => canOverlap(pattern.match, own.match));
        if (shared === undefined) continue;
        conflicts.push(
          `cluster "${single.name}" reads "${own.match}" on ${master}, a master of the Redlock group "${group.name}", whose pattern "${shared.match}" matches the same keys: ` +
            `the group would read those single-master locks as Redlock splits. A Redlock group reads every pattern on every master; give the single-master locks patterns the group's do not match`,
        );
      }
    }
  }
  return conflicts;
}
