import path from "node:path";
import { fileURLToPath } from "node:url";

import { ensureMavenBuilt, type MavenBuild } from "@/tools/maven/ensure-maven-built";
import { type LibraryContender, startLibraryContender } from "@/tests/support/library-contender";

// Drives tests/support/bookkeeper-auditor's AuditorContender: a bookie as ZooKeeper sees it
// (registered through BookKeeper 4.18.2's own registration manager) running BookKeeper's own
// AuditorElector, one JVM (one ZooKeeper session for its election) per bookie, so that killing one
// is one bookie's crash.

export const BOOKKEEPER_AUDITOR_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "bookkeeper-auditor");

export function ensureBookkeeperAuditorBuilt(options: { log?: (line: string) => void } = {}): Promise<MavenBuild> {
  return ensureMavenBuilt(BOOKKEEPER_AUDITOR_DIR, "the BookKeeper 4.18.2 auditor election test contender", options);
}

export type Bookie = LibraryContender & { bookieId: string };

/**
 * Starts a bookie's elector; resolves once its election is under way (its vote may not be
 * written yet: wait for "auditor", or for the vote, before starting the next one).
 */
export async function startBookie(options: {
  /** host:port of the ZooKeeper server. */
  zookeeper: string;
  sessionTimeoutMs: number;
  /** zkLedgersRootPath. */
  ledgersRoot: string;
  /** "<host>:<port>", as the bookie advertises itself. */
  bookieId: string;
}): Promise<Bookie> {
  const build = await ensureBookkeeperAuditorBuilt({ log: (line) => process.stderr.write(`[bookkeeper] ${line}\n`) });
  const { contender } = await startLibraryContender({
    build,
    mainClass: "org.apache.bookkeeper.replication.AuditorContender",
    args: [options.zookeeper, String(options.sessionTimeoutMs), options.ledgersRoot, options.bookieId],
    name: `bookie ${options.bookieId}`,
    joinedEvent: "started",
  });
  return { ...contender, bookieId: options.bookieId };
}
