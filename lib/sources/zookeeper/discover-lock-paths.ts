import type { HoldReadError, LockRef } from "@/lib/poller/contract/hold-source";

import { hasContenders, parseContender } from "./recipe-layout";
import type { ZookeeperClusterConfig } from "./zookeeper-config";
import type { ZookeeperConnection } from "./zookeeper-connection";

// Which lock nodes are in scope. Configured paths are the locks themselves (a path whose node
// does not exist yet is a free lock). Under a root, a walk finds every node whose children
// follow a known recipe; a node found so once stays a lock while it exists, so a lock between
// two holders (no children) is still read, and is gone once Curator's container node is removed.
// The walk leaves a child watch on each directory it reads: a lock that appears between two walks
// (a new election) is found when its first contender is created, not at the next walk.

export type Discovery = {
  discover(): Promise<{ keys: LockRef[]; errors: HoldReadError[]; isComplete: boolean; requests: number }>;
  /** The pattern of a path heard of through a watch, or null when it is no lock in scope. */
  patternOf(path: string): string | null;
};

function childPath(parent: string, name: string): string {
  return parent === "/" ? `/${name}` : `${parent}/${name}`;
}

function depthBelow(root: string, path: string): number {
  const rest = root === "/" ? path : path.slice(root.length);
  return rest.split("/").filter(Boolean).length;
}

export function createDiscovery(
  config: Pick<ZookeeperClusterConfig, "paths" | "root">,
  connection: ZookeeperConnection,
  /** Locks found under the root by a directory watch, between two walks. */
  onFound: (paths: string[]) => void = () => undefined,
): Discovery {
  const configured = new Map((config.paths ?? []).map((entry) => [entry.path, entry]));
  const foundUnderRoot = new Set<string>();
  const root = config.root;

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
      .filter((child) => !foundUnderRoot.has(child) && !configured.has(child));
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
      const walked = await walkRoot();
      const keys = [...[...configured.keys()].map((path) => ({ key: path, pattern: path })), ...walked.keys.filter((ref) => !configured.has(ref.key))];
      return { keys, errors: walked.errors, isComplete: walked.errors.length === 0, requests: walked.requests };
    },
    patternOf(path) {
      if (configured.has(path)) return path;
      return root && foundUnderRoot.has(path) ? root.path : null;
    },
  };
}
