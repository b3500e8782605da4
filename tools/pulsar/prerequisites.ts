import { spawnSync } from "node:child_process";
import path from "node:path";

// Thrown when a tool the broker needs is not installed: its message is the one line to act on.
export class MissingPrerequisiteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MissingPrerequisiteError";
  }
}

const MIN_JAVA_MAJOR = 17;
const JAVA_INSTALL_HINT = "install a JDK 17+ (Debian: apt-get install -y openjdk-17-jdk-headless)";
const MAVEN_INSTALL_HINT = "install Maven 3.8+ (Debian: apt-get install -y maven)";

// JAVA_HOME wins over PATH, as it does for Maven, so that both use the same JDK.
export function resolveJavaCommand(): string {
  const javaHome = process.env.JAVA_HOME;
  return javaHome ? path.join(javaHome, "bin", "java") : "java";
}

export function parseJavaMajorVersion(versionOutput: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(versionOutput);
  if (!match) return undefined;
  const first = Number(match[1]);
  // Java 8 and older call themselves "1.8.0_..."
  return first === 1 && match[2] !== undefined ? Number(match[2]) : first;
}

export function assertJavaAvailable(): string {
  const java = resolveJavaCommand();
  const result = spawnSync(java, ["-version"], { encoding: "utf8" });
  if (result.error) {
    throw new MissingPrerequisiteError(
      `The Pulsar test broker needs Java ${MIN_JAVA_MAJOR}+, but "${java}" could not be run (${result.error.message}): ${JAVA_INSTALL_HINT}.`,
    );
  }
  const major = parseJavaMajorVersion(`${result.stderr}${result.stdout}`);
  if (major === undefined || major < MIN_JAVA_MAJOR) {
    throw new MissingPrerequisiteError(
      `The Pulsar test broker needs Java ${MIN_JAVA_MAJOR}+, but "${java}" is ${major === undefined ? "of an unknown version" : `Java ${major}`}: ${JAVA_INSTALL_HINT}.`,
    );
  }
  return java;
}

export function assertMavenAvailable(): void {
  const result = spawnSync("mvn", ["-v"], { encoding: "utf8" });
  if (result.error || result.status !== 0) {
    const why = result.error ? result.error.message : `exit code ${result.status}`;
    throw new MissingPrerequisiteError(`Resolving the Pulsar jars needs Maven, but "mvn -v" failed (${why}): ${MAVEN_INSTALL_HINT}.`);
  }
}
