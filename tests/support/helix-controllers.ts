import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { ensureMavenBuilt, type MavenBuild } from "@/tools/maven/ensure-maven-built";
import { type GuardedJvm, startGuardedJvm } from "@/tests/support/guarded-jvm";

// Apache Helix 1.4.3 (tests/support/helix/pom.xml, from Maven Central): a cluster made with
// Helix's own ClusterSetup, and standalone controllers (HelixControllerMain), each its own guarded
// JVM; the leading one owns /<cluster>/CONTROLLER/LEADER. Helix's session timeout is its
// `zk.session.timeout` system property (30 s by default; short here, so a crash expires soon).

export const HELIX_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "helix");

export function ensureHelixBuilt(options: { log?: (line: string) => void } = {}): Promise<MavenBuild> {
  return ensureMavenBuilt(HELIX_DIR, "the Helix 1.4.3 test controller", options);
}

export type HelixController = Omit<GuardedJvm, "dispose"> & { name: string };
export type HelixControllers = { controllers: HelixController[]; dispose(): Promise<void> };

export async function startHelixControllers(options: {
  zookeeper: string;
  cluster: string;
  names: string[];
  sessionTimeoutMs: number;
}): Promise<HelixControllers> {
  const build = await ensureHelixBuilt({ log: (line) => process.stderr.write(`[helix] ${line}\n`) });
  const dir = mkdtempSync(path.join(os.tmpdir(), "baton-helix-"));
  const jvm = ["-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", `-Dzk.session.timeout=${options.sessionTimeoutMs}`, `@${build.classpathArgFile}`];
  const setup = spawnSync(build.java, [...jvm, "org.apache.helix.tools.ClusterSetup", "--zkSvr", options.zookeeper, "--addCluster", options.cluster], {
    encoding: "utf8",
    timeout: 60_000,
  });
  if (setup.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`Helix's ClusterSetup failed (${setup.status}): ${setup.stderr.slice(-2_000)}`);
  }
  const started: GuardedJvm[] = [];
  const controllers: HelixController[] = [];
  try {
    for (const name of options.names) {
      const controller = await startGuardedJvm({
        java: build.java,
        args: [...jvm, "org.apache.helix.controller.HelixControllerMain", "--zkSvr", options.zookeeper, "--cluster", options.cluster, "--controllerName", name],
        logFile: path.join(dir, `${name}.log`),
        name: `Helix controller ${name}`,
      });
      started.push(controller);
      controllers.push({ name, kill: controller.kill, terminate: controller.terminate, isRunning: controller.isRunning, logTail: controller.logTail });
    }
  } catch (error) {
    for (const controller of started) controller.dispose();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    controllers,
    async dispose() {
      for (const controller of started) controller.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
