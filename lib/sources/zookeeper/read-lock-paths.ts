import type { HoldReadError, LockRef } from "@/lib/poller/contract/hold-source";

import type { ContenderReading, LockReading } from "./lock-observation";
import { isSemaphoreMutex, orderContenders, SEMAPHORE_LEASES } from "./recipe-layout";
import type { ZookeeperRecipe } from "./zookeeper-config";
import { readEachRef } from "./read-each-ref";
import type { ZookeeperConnection } from "./zookeeper-connection";

// One read of lock nodes: getChildren (arming the change watch) and getData of the holder and
// the first waiters. All paths are read at once; the request budget paces them, and the client
// pipelines them on its one connection.

export type ReadOptions = {
  recipeOf: (ref: LockRef) => ZookeeperRecipe;
  maxWaitersRead: number;
  /** Armed on every lock node read: fires once at its next child change. */
  watch?: (event: { path: string; type: string }) => void;
};

export async function readLockPaths(
  connection: ZookeeperConnection,
  refs: LockRef[],
  options: ReadOptions,
): Promise<{ readings: LockReading[]; errors: HoldReadError[] }> {
  async function readOne(ref: LockRef): Promise<LockReading> {
    const recipe = options.recipeOf(ref);
    let children = await connection.getChildren(ref.key, options.watch);
    let contenderDir = ref.key;
    // A semaphore mutex queues in its `leases` child: that is where the contenders are (and watched).
    if (children !== null && isSemaphoreMutex(children, recipe)) {
      contenderDir = `${ref.key}/${SEMAPHORE_LEASES}`;
      children = (await connection.getChildren(contenderDir, options.watch)) ?? [];
    }
    const contenders = new Map<string, ContenderReading>();
    const queue = orderContenders(children ?? [], recipe);
    await Promise.all(
      queue.contenders.slice(0, 1 + options.maxWaitersRead).map(async (contender) => {
        contenders.set(contender.name, await connection.getData(`${contenderDir}/${contender.name}`));
      }),
    );
    return { path: ref.key, pattern: ref.pattern, recipe, contenderDir, children, contenders, observedAt: new Date().toISOString() };
  }

  return readEachRef(connection, refs, readOne);
}
