import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { assertMavenAvailable } from "./prerequisites";
import { runMaven } from "../maven/run-maven";
import { readLogTail } from "./read-log-tail";

export const LAUNCHER_DIR = path.dirname(fileURLToPath(import.meta.url));

// The versions the pom knows how to resolve. 4.2.4 is the newest whose pom resolves from Maven
// Central; 3.0.7 (3.0 LTS) is only for recording fixtures of the older stats format.
export const PULSAR_VERSIONS = {
  "4.2.4": { mavenArgs: [] },
  "3.0.7": { mavenArgs: ["-Ppulsar-3.0"] },
} as const satisfies Record<string, { mavenArgs: readonly string[] }>;

export type PulsarVersion = keyof typeof PULSAR_VERSIONS;
export const DEFAULT_PULSAR_VERSION: PulsarVersion = "4.2.4";

export function isPulsarVersion(value: string): value is PulsarVersion {
  return Object.hasOwn(PULSAR_VERSIONS, value);
}

export interface LauncherBuild {
  version: PulsarVersion;
  /** A java @argfile holding `-cp <launcher classes>:<every jar>`. */
  classpathArgFile: string;
  jarCount: number;
  /** "cached": Maven did not run; "offline"/"online": how Maven resolved. */
  source: "cached" | "offline" | "online";
  durationMs: number;
}

export interface EnsureBuiltOptions {
  /** Progress lines (Maven's first resolve downloads ~250 MB and takes a minute or more). */
  log?: (line: string) => void;
}

const BuildStampSchema = z.object({ key: z.string(), jarCount: z.number() });

const LAUNCHER_CLASS_FILE = path.join("classes", "baton", "pulsar", "StandaloneLauncher.class");

/**
 * Compiles the launcher and resolves Pulsar's jars for `version`, once. Later calls reuse the
 * classpath cached under target/<version>/ without running Maven, as long as the pom and the
 * launcher sources are unchanged and every jar is still in ~/.m2.
 */
export async function ensureBrokerBuilt(version: PulsarVersion = DEFAULT_PULSAR_VERSION, options: EnsureBuiltOptions = {}): Promise<LauncherBuild> {
  const started = performance.now();
  const buildDir = path.join(LAUNCHER_DIR, "target", version);
  const classpathFile = path.join(buildDir, "classpath.txt");
  const classpathArgFile = path.join(buildDir, "classpath.args");
  const stampFile = path.join(buildDir, "baton-build.json");
  const key = computeBuildKey(version);

  const cachedJarCount = readValidBuild(buildDir, stampFile, classpathFile, key);
  if (cachedJarCount !== undefined && existsSync(classpathArgFile)) {
    return { version, classpathArgFile, jarCount: cachedJarCount, source: "cached", durationMs: performance.now() - started };
  }

  assertMavenAvailable();
  mkdirSync(buildDir, { recursive: true });
  const mavenLog = path.join(buildDir, "maven.log");
  const mavenArgs = [
    "-B",
    "--no-transfer-progress",
    ...PULSAR_VERSIONS[version].mavenArgs,
    "compile",
    "dependency:build-classpath",
    `-Dmdep.outputFile=${classpathFile}`,
  ];
  // Offline first: after the first resolve everything is in ~/.m2 and this takes seconds.
  options.log?.(`Building the Pulsar ${version} launcher with Maven (offline first)...`);
  let source: LauncherBuild["source"] = "offline";
  if ((await runMaven(["-o", ...mavenArgs], { cwd: LAUNCHER_DIR, logFile: mavenLog })) !== 0) {
    options.log?.(`Resolving Pulsar ${version} from Maven Central (first run: a minute or more, ~250 MB)...`);
    source = "online";
    const exitCode = await runMaven(mavenArgs, { cwd: LAUNCHER_DIR, logFile: mavenLog });
    if (exitCode !== 0) {
      throw new Error(`Maven failed (exit ${exitCode}) building the Pulsar ${version} launcher; see ${mavenLog}:\n${readLogTail(mavenLog, 30)}`);
    }
  }

  const jars = readClasspathJars(classpathFile);
  const classpath = [path.join(buildDir, "classes"), ...jars].join(path.delimiter);
  // An argfile keeps a 30 KB classpath off the command line, so `ps` output stays readable.
  writeFileSync(classpathArgFile, `-cp "${classpath.replaceAll("\\", "\\\\")}"\n`);
  writeFileSync(stampFile, JSON.stringify({ key, jarCount: jars.length }, null, 2));
  return { version, classpathArgFile, jarCount: jars.length, source, durationMs: performance.now() - started };
}

/** The jars on the resolved classpath, for measuring the download size. */
export function readClasspathJars(classpathFile: string): string[] {
  return readFileSync(classpathFile, "utf8")
    .trim()
    .split(path.delimiter)
    .filter((entry) => entry.length > 0);
}

function readValidBuild(buildDir: string, stampFile: string, classpathFile: string, key: string): number | undefined {
  if (!existsSync(stampFile) || !existsSync(classpathFile) || !existsSync(path.join(buildDir, LAUNCHER_CLASS_FILE))) {
    return undefined;
  }
  const stamp = BuildStampSchema.safeParse(JSON.parse(readFileSync(stampFile, "utf8")));
  if (!stamp.success || stamp.data.key !== key) return undefined;
  // A cleaned ~/.m2 must send us back to Maven rather than to a ClassNotFoundException.
  const jars = readClasspathJars(classpathFile);
  return jars.every((jar) => existsSync(jar)) ? jars.length : undefined;
}

function computeBuildKey(version: PulsarVersion): string {
  const hash = createHash("sha256");
  hash.update(`version=${version}\n`);
  for (const file of [path.join(LAUNCHER_DIR, "pom.xml"), ...listFiles(path.join(LAUNCHER_DIR, "src"))]) {
    hash.update(`${path.relative(LAUNCHER_DIR, file)}\n`);
    hash.update(readFileSync(file));
  }
  return hash.digest("hex");
}

function listFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? listFiles(full) : [full];
    });
}
