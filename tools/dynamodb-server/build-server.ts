import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { ensureMavenBuilt, type MavenBuild } from "../maven/ensure-maven-built";

// DynamoDB Local 2.5.4 of tools/dynamodb-server/pom.xml, resolved from Maven Central once. Its
// SQLite binding loads a native library by its short name from java.library.path: the
// versioned .so that Maven resolved is copied under target/native/ as
// libsqlite4java-linux-amd64.so.

export const DYNAMODB_SERVER_DIR = path.dirname(fileURLToPath(import.meta.url));
export const DYNAMODB_MAIN_CLASS = "com.amazonaws.services.dynamodbv2.local.main.ServerRunner";

export type DynamodbServerBuild = MavenBuild & { libraryPath: string };

export async function ensureDynamodbServerBuilt(options: { log?: (line: string) => void } = {}): Promise<DynamodbServerBuild> {
  const build = await ensureMavenBuilt(DYNAMODB_SERVER_DIR, "the DynamoDB Local 2.5.4 test server", options);
  const libraryPath = path.join(DYNAMODB_SERVER_DIR, "target", "native");
  const target = path.join(libraryPath, "libsqlite4java-linux-amd64.so");
  if (!existsSync(target)) {
    const jars = readFileSync(path.join(DYNAMODB_SERVER_DIR, "target", "classpath.txt"), "utf8").split(path.delimiter);
    const native = jars.find((jar) => /libsqlite4java-linux-amd64-[^/]*\.so$/.test(jar.trim()));
    if (!native) throw new Error("DynamoDB Local's classpath has no libsqlite4java-linux-amd64 library (is this machine linux x86-64?)");
    mkdirSync(libraryPath, { recursive: true });
    copyFileSync(native.trim(), target);
  }
  return { ...build, libraryPath };
}
