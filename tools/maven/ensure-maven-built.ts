import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

import { resolveJavaCommand } from "../pulsar/prerequisites";
import { readLogTail } from "../pulsar/read-log-tail";
import { withBuildLock } from "./build-lock";
import { runMaven } from "./run-maven";

// Builds a Maven project of tools/ (the ZooKeeper server's pom, the Curator and Redisson
// contenders) the way tools/pulsar/build-launcher.ts builds the Pulsar launcher: Maven offline first, then Maven
// Central; the classpath is cached under target/ until the pom or the sources change. One build
// of a project at a time across processes (build-lock.ts).

export type MavenBuild = {
  java: string;
  /** A java @argfile holding `-cp <classes>:<every jar>`. */
  classpathArgFile: string;
  source: "cached" | "offline" | "online";
};

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? listFiles(full) : [full];
    });
}

function buildKey(dir: string): string {
  const hash = createHash("sha256");
  for (const file of [path.join(dir, "pom.xml"), ...listFiles(path.join(dir, "src"))]) {
    hash.update(`${path.relative(dir, file)}\n`);
    hash.update(readFileSync(file));
  }
  return hash.digest("hex");
}

function readJars(classpathFile: string): string[] {
  return readFileSync(classpathFile, "utf8")
    .trim()
    .split(path.delimiter)
    .filter((entry) => entry.length > 0);
}

const JDK_HINT = "install a JDK 17+ (Debian: apt-get install -y openjdk-17-jdk-headless)";

function assertJavaRuns(java: string, what: string): void {
  const result = spawnSync(java, ["-version"], { encoding: "utf8" });
  if (result.error || result.status !== 0)
    throw new Error(`${what} needs "${java}", which could not be run (${result.error?.message ?? `exit ${result.status}`}): ${JDK_HINT}.`);
}

/** Throws one line saying what to install when java or mvn cannot be run. */
export function assertJavaAndMaven(java: string, what: string): void {
  for (const [command, args, hint] of [
    [java, ["-version"], JDK_HINT],
    ["mvn", ["-v"], "install Maven 3.8+ (Debian: apt-get install -y maven)"],
  ] as const) {
    const result = spawnSync(command, args, { encoding: "utf8" });
    if (result.error || result.status !== 0) {
      throw new Error(`${what} needs "${command}", which could not be run (${result.error?.message ?? `exit ${result.status}`}): ${hint}.`);
    }
  }
}

export type MavenBuildOptions = {
  log?: (line: string) => void;
  /** Maven goals before dependency:build-classpath (default: compile, when there are sources). */
  goals?: string[];
  /** Resolves the test-scoped jars too (a project whose test sources are run). */
  includeTestScope?: boolean;
  /** What of target/ goes first on the classpath (default: classes, when there are sources). */
  classDirs?: string[];
};

/**
 * Compiles the project in `dir` (if it has sources) and resolves its jars, once; later calls
 * reuse the cached classpath. `label` names it in messages ("the ZooKeeper test server").
 */
export async function ensureMavenBuilt(dir: string, label: string, options: MavenBuildOptions = {}): Promise<MavenBuild> {
  const java = resolveJavaCommand();
  const buildDir = path.join(dir, "target");
  const classpathFile = path.join(buildDir, "classpath.txt");
  const classpathArgFile = path.join(buildDir, "classpath.args");
  const stampFile = path.join(buildDir, "baton-build.json");
  const hasSources = existsSync(path.join(dir, "src"));
  const key = buildKey(dir);
  const isBuilt = () => {
    if (!existsSync(stampFile) || !existsSync(classpathArgFile) || !existsSync(classpathFile)) return false;
    const stamp = JSON.parse(readFileSync(stampFile, "utf8")) as { key?: string };
    // A cleaned ~/.m2 must send us back to Maven rather than to a ClassNotFoundException.
    return stamp.key === key && readJars(classpathFile).every((jar) => existsSync(jar));
  };
  const cached = () => {
    // Built before, but the JDK may have gone since: say so in one line, not as a server that never answers.
    assertJavaRuns(java, label);
    return { java, classpathArgFile, source: "cached" as const };
  };
  if (isBuilt()) return cached();

  assertJavaAndMaven(java, label);
  mkdirSync(buildDir, { recursive: true });
  return withBuildLock(
    path.join(buildDir, "baton-build.lock"),
    // Another process may have built it while this one waited.
    async () => (isBuilt() ? cached() : build()),
    { onWait: (pid) => options.log?.(`Waiting for process ${pid}, which is building ${label}...`) },
  );

  async function build(): Promise<MavenBuild> {
    const mavenLog = path.join(buildDir, "maven.log");
    const goals = options.goals ?? (hasSources ? ["compile"] : []);
    const scope = options.includeTestScope ? ["-Dmdep.includeScope=test"] : [];
    const mavenArgs = ["-B", "--no-transfer-progress", ...goals, "dependency:build-classpath", `-Dmdep.outputFile=${classpathFile}`, ...scope];
    options.log?.(`Building ${label} with Maven (offline first)...`);
    let source: MavenBuild["source"] = "offline";
    if ((await runMaven(["-o", ...mavenArgs], { cwd: dir, logFile: mavenLog })) !== 0) {
      options.log?.(`Resolving ${label} from Maven Central (first run)...`);
      source = "online";
      const exitCode = await runMaven(mavenArgs, { cwd: dir, logFile: mavenLog });
      if (exitCode !== 0) throw new Error(`Maven failed (exit ${exitCode}) building ${label}; see ${mavenLog}:\n${readLogTail(mavenLog, 30)}`);
    }
    const classDirs = options.classDirs ?? (hasSources ? ["classes"] : []);
    const classpath = [...classDirs.map((entry) => path.join(buildDir, entry)), ...readJars(classpathFile)].join(path.delimiter);
    writeFileSync(classpathArgFile, `-cp "${classpath.replaceAll("\\", "\\\\")}"\n`);
    writeFileSync(stampFile, JSON.stringify({ key }, null, 2));
    return { java, classpathArgFile, source };
  }
}
