import path from "node:path";
import { fileURLToPath } from "node:url";

import { ensureMavenBuilt, type MavenBuild } from "@/tools/maven/ensure-maven-built";
import { type LibraryContender, startLibraryContender } from "@/tests/support/library-contender";

// Drives tests/support/solr-overseer's OverseerContender: Solr 9.10.1's own overseer election
// (LeaderElector with OverseerElectionContext, as ZkController joins it), one JVM (one ZooKeeper
// session) per Solr node, so that killing one is one node's crash.

export const SOLR_OVERSEER_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "solr-overseer");

export function ensureSolrOverseerBuilt(options: { log?: (line: string) => void } = {}): Promise<MavenBuild> {
  return ensureMavenBuilt(SOLR_OVERSEER_DIR, "the Solr 9.10.1 overseer election test contender", options);
}

export type SolrNode = LibraryContender & {
  nodeName: string;
  /** Its node in the election queue: "<session id>-<node name>-n_<sequence>". */
  electionNode: string;
};

/** Starts a node; resolves once its election node is in the queue (it may already lead). */
export async function startSolrNode(options: {
  /** Solr's zkHost: host:port, with its chroot if any. */
  zkHost: string;
  sessionTimeoutMs: number;
  /** Solr's node name: "<host>:<port>_solr". */
  nodeName: string;
}): Promise<SolrNode> {
  const build = await ensureSolrOverseerBuilt({ log: (line) => process.stderr.write(`[solr] ${line}\n`) });
  const { contender, joinedLine } = await startLibraryContender({
    build,
    mainClass: "org.apache.solr.cloud.OverseerContender",
    args: [options.zkHost, String(options.sessionTimeoutMs), options.nodeName],
    name: `Solr node ${options.nodeName}`,
    joinedEvent: "joined",
  });
  return { ...contender, nodeName: options.nodeName, electionNode: path.posix.basename(joinedLine.slice("joined ".length)) };
}
