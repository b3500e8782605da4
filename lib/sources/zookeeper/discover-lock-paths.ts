import type { HoldReadError, LockRef } from "@/lib/poller/contract/hold-source";

import { isPattern, listLockTargets } from "./lock-targets";
import { hasContenders, parseContender } from "./recipe-layout";
import type { LockTarget } from "./systems/system-role";
import type { ZookeeperClusterConfig } from "./zookeeper-config";
import type { ZookeeperConnection } from "./zookeeper-connection";
import { joinPath, segmentsOf } from "./znode-path";

// Which lock nodes are in scope. Configured paths (and the systems' fixed paths) are the locks
// themselves (a path whose node does not exist yet is a free lock). A system's pattern (`*` for
// one segment: every HDFS nameservice, every Patroni scope) is listed on every walk, with a child
// watch on each directory listed, so a new nameservice is found when it appears. Under a root, a
// walk finds every node whose children follow a known recipe; a node found so once stays a lock
// while it exists, so a lock between two holders (no children) is still read, and is gone once
// Curator's container node is removed. The walk leaves a child watch on each directory it reads:
// a lock that appears between two walks (a new election) is found when its first contender is
// created, not at the next walk.

export type Discovery = {
  discover(): Promise<{ keys: LockRef[]; errors: HoldReadError[]; isComplete: boolean; requests: number }>;
  /** The pattern of a path heard of through a watch, or null when it is no lock in scope. */
  patternOf(path: string): string | null;
  /** What a lock found under a pattern is: its recipe, whether it must be held, its system's role. */
  targetOf(ref: LockRef): LockTarget;
};

function childPath(parent: string, name: string): string {
  return parent === "/" ? `/${name}` : `${parent}/${name}`;
}

function depthBelow(root: string, path: string): number {
  const rest = root === "/" ? path : path.slice(root.length);
  return rest.split("/").filter(Boolean).length;
}

export function createDiscovery(
  config: Pick<ZookeeperClusterConfig, "paths" | "root" | "systems">,
  connection: ZookeeperConnection,
  /** Locks found under the root or a pattern by a directory watch, between two walks. */
  onFound: (paths: string[]) => void = () => undefined,
): Discovery {
  const targets = new Map(listLockTargets(config).map((target) => [target.pattern, target]));
  const configured = new Map([...targets.values()].filter((target) => !isPattern(target)).map((target) => [target.pattern, target]));
  const patterns = [...targets.values()].filter(isPattern);
  /** Lock paths a pattern's listing found, with their pattern. */
  const foundByPattern = new Map<string, string>();
  const foundUnderRoot = new Set<string>();
  const root = config.root;
  const rootTarget: LockTarget | null = root ? { pattern: root.path, recipe: root.recipe, mustBeHeld: root.mustBeHeld, role: null } : null;

  /** The paths a pattern stands for now: each `*` segment listed (arming a child watch on it). */
  async function expandPattern(target: LockTarget): Promise<{ keys: string[]; requests: number }> {
    let paths = ["/"];
    let requests = 0;
    for (const segment of segmentsOf(target.pattern)) {
      if (segment !== "*") {
        paths = paths.map((path) => joinPath(path, segment));
        continue;
      }
      const listed = await Promise.all(
        paths.map(async (path) => {
          requests += 1;
          const children = await connection.getChildren(path, watchPatternDirectory);
          if (children !== null) return children.map((child) => joinPath(path, child));
          // Not there yet (no HDFS nameservice has started): its creation lists the pattern again.
          requests += 1;
          if ((await connection.exists(path, watchPatternDirectory)) === null) return [];
          // Created between the two requests: list it now.
          requests += 1;
          return ((await connection.getChildren(path, watchPatternDirectory)) ?? []).map((child) => joinPath(path, child));
        }),
      );
      paths = listed.flat();
    }
    return { keys: paths, requests };
  }

  /** A listed directory of a pattern changed: list the patterns again, announcing new locks. */
  let listing: "idle" | "running" | "again" = "idle";
  function watchPatternDirectory(event: { path: string; type: string }): void {
    if (event.type === "deleted") return;
    // A change during a listing may have come after its read of that directory: list once more after it.
    if (listing !== "idle") {
      listing = "again";
      return;
    }
    listing = "running";
    Promise.all(patterns.map(async (target) => ({ target, found: await expandPattern(target) })))
      .then((expanded) => {
        const fresh: string[] = [];
        for (const { target, found } of expanded)
          for (const key of found.keys)
            if (!foundByPattern.has(key) && !configured.has(key)) {
              foundByPattern.set(key, target.pattern);
              fresh.push(key);
            }
        if (fresh.length > 0) onFound(fresh);
      })
      .catch(() => {
        // Unreachable now: the next walk lists them again (and sets the watches again).
      })
      .finally(() => {
        const isAgain = listing === "again";
        listing = "idle";
        if (isAgain) watchPatternDirectory(event);
      });
  }

  async function walkPatterns(): Promise<{ keys: LockRef[]; errors: HoldReadError[]; requests: number }> {
    const keys: LockRef[] = [];
    const errors: HoldReadError[] = [];
    let requests = 0;
    const seen = new Set<string>();
    await Promise.all(
      patterns.map(async (target) => {
        try {
          const found = await expandPattern(target);
          requests += found.requests;
          for (const key of found.keys) {
            if (configured.has(key) || seen.has(key)) continue;
            seen.add(key);
            foundByPattern.set(key, target.pattern);
            keys.push({ key, pattern: target.pattern });
          }
        } catch (error) {
          errors.push({ key: target.pattern, message: (error as Error).message });
        }
      }),
    );
    if (errors.length === 0) for (const key of foundByPattern.keys()) if (!seen.has(key)) foundByPattern.delete(key);
    return { keys, errors, requests };
  }

  // One function for every directory, so the client keeps one registration per node.
  const watchDirectory = (event: { path: string; type: string }) => {
    // A lock's own changes are its read's business (that watch is the source's).
    if (event.type === "deleted" || foundUnderRoot.has(event.path)) return;
    inspect(event.path).catch(() => {
      // Unreachable now: the next walk finds what this would have (and sets the watch again).
    });
  };

  /** Reads a directory under the root again (re-arming its watch): new locks in it, or new directories to watch. */
  async function inspect(path: string): Promise<void> {
    if (!root) return;
    const depth = depthBelow(root.path, path);
    const children = await connection.getChildren(path, watchDirectory);
    if (children === null) return;
    if (path !== root.path && hasContenders(children, root.recipe)) {
      foundUnderRoot.add(path);
      onFound([path]);
      return;
    }
    if (depth >= root.maxDepth) return;
    const unknown = children
      .filter((name) => parseContender(name) === null)
      .map((name) => childPath(path, name))
      .filter((child) => !foundUnderRoot.has(child) && !configured.has(child) && !foundByPattern.has(child));
    await Promise.all(unknown.map((child) => inspect(child)));
  }

  async function walkRoot(): Promise<{ keys: LockRef[]; errors: HoldReadError[]; requests: number }> {
    if (!root) return { keys: [], errors: [], requests: 0 };
    const keys: LockRef[] = [];
    const errors: HoldReadError[] = [];
    const seen = new Set<string>();
    let requests = 0;
    let level = [root.path];
    for (let depth = 0; depth <= root.maxDepth && level.length > 0; depth++) {
      const next: string[] = [];
      await Promise.all(
        level.map(async (path) => {
          requests += 1;
          try {
            const children = await connection.getChildren(path, watchDirectory);
            if (children === null) return;
            seen.add(path);
            if (path !== root.path && (hasContenders(children, root.recipe) || foundUnderRoot.has(path))) {
              foundUnderRoot.add(path);
              keys.push({ key: path, pattern: root.path });
              // A lock's children are its contenders (or a semaphore mutex's leases and locks): no locks below.
              return;
            }
            // Contenders are ephemeral: they have no children to walk.
            if (depth < root.maxDepth) for (const name of children) if (parseContender(name) === null) next.push(childPath(path, name));
          } catch (error) {
            errors.push({ key: path, message: (error as Error).message });
          }
        }),
      );
      level = next;
    }
    // A lock node that no longer exists is no lock any more (unless it comes back with contenders).
    if (errors.length === 0) for (const path of foundUnderRoot) if (!seen.has(path)) foundUnderRoot.delete(path);
    return { keys, errors, requests };
  }

  return {
    async discover() {
      const listed = await walkPatterns();
      const walked = await walkRoot();
      const keys = [
        ...[...configured.keys()].map((path) => ({ key: path, pattern: path })),
        ...listed.keys,
        ...walked.keys.filter((ref) => !configured.has(ref.key) && !foundByPattern.has(ref.key)),
      ];
      const errors = [...listed.errors, ...walked.errors];
      return { keys, errors, isComplete: errors.length === 0, requests: listed.requests + walked.requests };
    },
    patternOf(path) {
      if (configured.has(path)) return path;
      const pattern = foundByPattern.get(path);
      if (pattern !== undefined) return pattern;
      return root && foundUnderRoot.has(path) ? root.path : null;
    },
    targetOf(ref) {
      return targets.get(ref.pattern) ?? rootTarget ?? { pattern: ref.pattern, recipe: "auto", mustBeHeld: false, role: null };
    },
  };
}
