import path from "node:path";
import { fileURLToPath } from "node:url";

import { ensureMavenBuilt, type MavenBuild } from "../maven/ensure-maven-built";

// The Curator 5.7.1 contender of tools/curator/ (pom.xml + CuratorContender.java), built once.

export const CURATOR_CONTENDER_DIR = path.dirname(fileURLToPath(import.meta.url));

export function ensureCuratorContenderBuilt(options: { log?: (line: string) => void } = {}): Promise<MavenBuild> {
  return ensureMavenBuilt(CURATOR_CONTENDER_DIR, "the Curator test contender", options);
}
