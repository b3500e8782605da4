import type { LockTarget } from "./systems/system-role";
import { listSystemTargets } from "./systems/systems";
import type { ZookeeperClusterConfig } from "./zookeeper-config";

// Every lock node a configuration names, as one list: the configured paths, and the paths (or
// patterns) of the systems it names. A root's walk finds the rest (discover-lock-paths.ts).

export function listLockTargets(config: Pick<ZookeeperClusterConfig, "paths" | "systems">): LockTarget[] {
  return [
    ...(config.paths ?? []).map(({ path, recipe, mustBeHeld }): LockTarget => ({ pattern: path, recipe, mustBeHeld, role: null })),
    ...(config.systems ?? []).flatMap(listSystemTargets),
  ];
}

/** Whether a target's pattern has `*` segments, which discovery lists. */
export function isPattern(target: LockTarget): boolean {
  return target.pattern.split("/").includes("*");
}
