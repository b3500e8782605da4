import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { startLineProtocolJvm } from "@/tools/line-protocol-jvm";
import type { MavenBuild } from "@/tools/maven/ensure-maven-built";

// One JVM that is one ZooKeeper session of a system's own election code (HBase's master, a Solr
// node's overseer bid, a bookie's auditor elector), driven over a line protocol: the JVM prints
// "<event> <words>" on stdout as the library calls back, its logs go to a file, and it halts when
// its stdin closes (this process died, even of SIGKILL). SIGKILL of its process group is the
// system's crash: its ephemeral nodes stay until ZooKeeper expires the session.

export type LibraryContender = {
  /** Resolves with the next line of event `kind` (or one seen before and not yet taken); rejects when the JVM exits first or after `timeoutMs`. */
  next(kind: string, timeoutMs?: number): Promise<string>;
  /** SIGKILL: the system's crash. Resolves once the JVM is gone. */
  kill(): Promise<void>;
  isRunning(): boolean;
  logTail(): string;
  /** Kills the JVM if it still runs and removes its log. */
  dispose(): Promise<void>;
};

const JVM_OPTIONS = ["-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"];

export async function startLibraryContender(options: {
  build: MavenBuild;
  mainClass: string;
  args: string[];
  /** Names the JVM in messages ("HBase master master-a"). */
  name: string;
  /** The event that says the contender has joined (startLibraryContender resolves with its line). */
  joinedEvent: string;
}): Promise<{ contender: LibraryContender; joinedLine: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "baton-contender-"));
  let jvm: ReturnType<typeof startLineProtocolJvm>;
  try {
    jvm = startLineProtocolJvm(options.build.java, [...JVM_OPTIONS, `@${options.build.classpathArgFile}`, options.mainClass, ...options.args], options.name, {
      logFile: path.join(dir, "jvm.log"),
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const kindOf = (line: string) => line.split(" ")[0]!;
  const contender: LibraryContender = {
    next: (kind, timeoutMs = 60_000) => jvm.next((line) => kindOf(line) === kind, { ms: timeoutMs, what: `"${kind}"` }),
    kill: () => jvm.kill(),
    isRunning: () => jvm.isRunning(),
    logTail: () => jvm.errorTail(),
    async dispose() {
      await jvm.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    return { contender, joinedLine: await contender.next(options.joinedEvent) };
  } catch (error) {
    await contender.dispose();
    throw error;
  }
}
