import type { HoldReadError, LockRef } from "@/lib/poller/contract/hold-source";

import type { ZookeeperConnection } from "./zookeeper-connection";

/**
 * One read of many locks on the session: every lock at once (the request budget paces them, the
 * client pipelines them). No session: every lock fails with its reason. A lock whose read fails is
 * absent from the readings, its error named by its key.
 */
export async function readEachRef<R>(
  connection: ZookeeperConnection,
  refs: LockRef[],
  readOne: (ref: LockRef) => Promise<R>,
): Promise<{ readings: R[]; errors: HoldReadError[] }> {
  try {
    await connection.ready();
  } catch (error) {
    const message = (error as Error).message;
    return { readings: [], errors: [{ message }, ...refs.map((ref) => ({ key: ref.key, message }))] };
  }
  const readings: R[] = [];
  const errors: HoldReadError[] = [];
  await Promise.all(
    refs.map((ref) =>
      readOne(ref).then(
        (reading) => void readings.push(reading),
        (error: unknown) => void errors.push({ key: ref.key, message: (error as Error).message }),
      ),
    ),
  );
  return { readings, errors };
}
