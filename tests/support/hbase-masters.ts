import path from "node:path";
import { fileURLToPath } from "node:url";

import { ensureMavenBuilt, type MavenBuild } from "@/tools/maven/ensure-maven-built";
import { type LibraryContender, startLibraryContender } from "@/tests/support/library-contender";

// Drives tests/support/hbase-master's MasterContender: HBase 2.6.1's own master election (HMaster's
// backup-masters node, then ActiveMasterManager until it is the active master), one JVM (one
// ZooKeeper session) per master, so that killing one is one master's crash.

export const HBASE_MASTER_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "hbase-master");

export function ensureHbaseMasterBuilt(options: { log?: (line: string) => void } = {}): Promise<MavenBuild> {
  return ensureMavenBuilt(HBASE_MASTER_DIR, "the HBase 2.6.1 master election test contender", options);
}

export type HbaseMaster = LibraryContender & {
  /** HBase's ServerName as the master's nodes carry it: "<host>,<port>,<start code>". */
  serverName: string;
  startCode: string;
};

/** Starts a master; resolves once its backup-masters node is written (it may already be the active master). */
export async function startHbaseMaster(options: {
  /** host:port of the ZooKeeper server. */
  zookeeper: string;
  sessionTimeoutMs: number;
  /** zookeeper.znode.parent. */
  parent: string;
  host: string;
  port: number;
  infoPort: number;
}): Promise<HbaseMaster> {
  const build = await ensureHbaseMasterBuilt({ log: (line) => process.stderr.write(`[hbase] ${line}\n`) });
  const [zookeeperHost, zookeeperPort] = options.zookeeper.split(":");
  const { contender, joinedLine } = await startLibraryContender({
    build,
    mainClass: "org.apache.hadoop.hbase.master.MasterContender",
    args: [zookeeperHost!, zookeeperPort!, String(options.sessionTimeoutMs), options.parent, options.host, String(options.port), String(options.infoPort)],
    name: `HBase master ${options.host}`,
    joinedEvent: "backup",
  });
  const serverName = joinedLine.slice("backup ".length);
  return { ...contender, serverName, startCode: serverName.split(",")[2]! };
}
