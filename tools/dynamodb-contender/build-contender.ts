import path from "node:path";
import { fileURLToPath } from "node:url";

import { ensureMavenBuilt, type MavenBuild } from "../maven/ensure-maven-built";

// The dynamodb-lock-client 1.3.0 contender of tools/dynamodb-contender/ (pom.xml +
// LockContender.java), built once. Its own pom: DynamoDB Local does not start with the lock
// client's AWS SDK on its classpath.

export const DYNAMODB_CONTENDER_DIR = path.dirname(fileURLToPath(import.meta.url));

export function ensureDynamodbContenderBuilt(options: { log?: (line: string) => void } = {}): Promise<MavenBuild> {
  return ensureMavenBuilt(DYNAMODB_CONTENDER_DIR, "the dynamodb-lock-client test contender", options);
}
