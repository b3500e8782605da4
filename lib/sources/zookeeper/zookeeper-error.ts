import zookeeper from "node-zookeeper-client";

// One error type for everything the ZooKeeper source could not read, with a one-line message
// that names the ensemble and says what to check.

export class ZookeeperSourceError extends Error {
  override name = "ZookeeperSourceError";
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

/** The client's error codes in words, with what to check where there is something to check. */
export function describeZookeeperError(error: unknown): string {
  const code = (error as { getCode?: () => number } | undefined)?.getCode?.();
  const name = (error as { getName?: () => string } | undefined)?.getName?.() ?? (error as Error | undefined)?.message ?? String(error);
  if (code === zookeeper.Exception.NO_AUTH) return `not allowed (${name}): check digest or digestFile, and the node's ACL`;
  if (code === zookeeper.Exception.AUTH_FAILED) return `authentication failed (${name}): check digest or digestFile`;
  if (code === zookeeper.Exception.CONNECTION_LOSS) return `connection lost (${name})`;
  if (code === zookeeper.Exception.SESSION_EXPIRED) return `session expired (${name}); a new session is being opened`;
  return name;
}
