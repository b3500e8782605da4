import path from "node:path";
import { fileURLToPath } from "node:url";

import { ensureMavenBuilt, type MavenBuild } from "../maven/ensure-maven-built";

// The Redisson 3.45.1 contender of tools/redisson/ (pom.xml + LockContender.java), built once.

export const CONTENDER_DIR = path.dirname(fileURLToPath(import.meta.url));

export type ContenderBuild = MavenBuild;

export function ensureContenderBuilt(options: { log?: (line: string) => void } = {}): Promise<ContenderBuild> {
  return ensureMavenBuilt(CONTENDER_DIR, "the Redisson test contender", options);
}
