import path from "node:path";
import { fileURLToPath } from "node:url";

import { ensureMavenBuilt, type MavenBuild } from "../maven/ensure-maven-built";

// The Quartz test contender of tools/quartz-contender/, built once: pom.xml + QuartzContender.java
// (quartz 2.5.2 clustered on JobStoreTX, HikariCP, the PostgreSQL driver).

export const QUARTZ_CONTENDER_DIR = path.dirname(fileURLToPath(import.meta.url));

export async function ensureQuartzContenderBuilt(options: { log?: (line: string) => void } = {}): Promise<MavenBuild> {
  return ensureMavenBuilt(QUARTZ_CONTENDER_DIR, "the Quartz test contender", options);
}
