import path from "node:path";
import { fileURLToPath } from "node:url";

import { ensureMavenBuilt, type MavenBuild } from "../maven/ensure-maven-built";

// The ZooKeeper 3.9.3 server of tools/zookeeper/pom.xml, resolved from Maven Central once.

export const ZOOKEEPER_SERVER_DIR = path.dirname(fileURLToPath(import.meta.url));
export const ZOOKEEPER_MAIN_CLASS = "org.apache.zookeeper.server.ZooKeeperServerMain";

export function ensureZookeeperServerBuilt(options: { log?: (line: string) => void } = {}): Promise<MavenBuild> {
  return ensureMavenBuilt(ZOOKEEPER_SERVER_DIR, "the ZooKeeper 3.9.3 test server", options);
}
