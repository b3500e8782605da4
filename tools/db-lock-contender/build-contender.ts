import path from "node:path";
import { fileURLToPath } from "node:url";

import { ensureMavenBuilt, type MavenBuild } from "../maven/ensure-maven-built";

// The lock-table contenders of tools/db-lock-contender/, built once: pom.xml + LockContender.java
// (ShedLock 6.9.2's JdbcLockProvider, Spring Integration 7.1.2's JdbcLockRegistry), and
// spring6/ (Spring Integration 6.5.6, whose INT_LOCK has no EXPIRED_AFTER: a project of its own,
// the same artifact in another version).

export const DB_LOCK_CONTENDER_DIR = path.dirname(fileURLToPath(import.meta.url));
export const SPRING6_CONTENDER_DIR = path.join(DB_LOCK_CONTENDER_DIR, "spring6");

export type DbLockContenderBuilds = { current: MavenBuild; spring6: MavenBuild };

export async function ensureDbLockContenderBuilt(options: { log?: (line: string) => void } = {}): Promise<DbLockContenderBuilds> {
  // One at a time: Maven is CPU-bound.
  const current = await ensureCurrentContenderBuilt(options);
  const spring6 = await ensureMavenBuilt(SPRING6_CONTENDER_DIR, "the Spring Integration 6.x test contender", options);
  return { current, spring6 };
}

/** The ShedLock and Spring Integration 7.x contender alone (what the demo's nightly job needs). */
export function ensureCurrentContenderBuilt(options: { log?: (line: string) => void } = {}): Promise<MavenBuild> {
  return ensureMavenBuilt(DB_LOCK_CONTENDER_DIR, "the ShedLock and Spring Integration test contender", options);
}
