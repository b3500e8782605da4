import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { findFreePort } from "@/tools/free-port";
import { ensureMavenBuilt, type MavenBuild } from "@/tools/maven/ensure-maven-built";
import { type GuardedJvm, startGuardedJvm } from "@/tests/support/guarded-jvm";

// Apache Kafka 3.9.1 brokers in ZooKeeper mode (tests/support/kafka/pom.xml, from Maven Central)
// on a test ZooKeeper: each its own guarded JVM (a small heap), its data in a temporary directory.
// The tests signal the JVM itself (SIGKILL: a crash; SIGTERM: Kafka's clean shutdown, which closes
// the controller's session and so deletes its node).

export const KAFKA_BROKER_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "kafka");

export function ensureKafkaBrokerBuilt(options: { log?: (line: string) => void } = {}): Promise<MavenBuild> {
  return ensureMavenBuilt(KAFKA_BROKER_DIR, "the Kafka 3.9.1 test broker", options);
}

/** kill(): SIGKILL, its ZooKeeper session lives on until the server expires it; terminate(): SIGTERM, Kafka's clean shutdown. */
export type KafkaBroker = Omit<GuardedJvm, "dispose"> & { id: number; port: number };

export type KafkaCluster = { brokers: KafkaBroker[]; dispose(): Promise<void> };

/**
 * Starts `count` brokers (ids 1..count) on `zookeeperConnect` (with its chroot, which Kafka
 * creates). Resolves once they run; the caller waits for their registration in ZooKeeper.
 */
export async function startKafkaBrokers(options: { zookeeperConnect: string; count: number; sessionTimeoutMs: number }): Promise<KafkaCluster> {
  const build = await ensureKafkaBrokerBuilt({ log: (line) => process.stderr.write(`[kafka] ${line}\n`) });
  const dir = mkdtempSync(path.join(os.tmpdir(), "baton-kafka-"));
  writeFileSync(
    path.join(dir, "log4j.properties"),
    [
      "log4j.rootLogger=INFO, stdout",
      "log4j.appender.stdout=org.apache.log4j.ConsoleAppender",
      "log4j.appender.stdout.layout=org.apache.log4j.PatternLayout",
      "log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n",
      "",
    ].join("\n"),
  );
  const brokers: KafkaBroker[] = [];
  const jvms: GuardedJvm[] = [];

  async function start(id: number): Promise<KafkaBroker> {
    const port = await findFreePort();
    const properties = path.join(dir, `broker-${id}.properties`);
    writeFileSync(
      properties,
      [
        `broker.id=${id}`,
        `listeners=PLAINTEXT://127.0.0.1:${port}`,
        `log.dirs=${path.join(dir, `data-${id}`)}`,
        `zookeeper.connect=${options.zookeeperConnect}`,
        `zookeeper.session.timeout.ms=${options.sessionTimeoutMs}`,
        "offsets.topic.replication.factor=1",
        "transaction.state.log.replication.factor=1",
        "transaction.state.log.min.isr=1",
        "group.initial.rebalance.delay.ms=0",
        "num.network.threads=1",
        "num.io.threads=2",
        "background.threads=2",
        "num.recovery.threads.per.data.dir=1",
        "",
      ].join("\n"),
    );
    const jvm = await startGuardedJvm({
      java: build.java,
      args: [
        "-Xmx256m",
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1",
        "-XX:CICompilerCount=1",
        `-Dlog4j.configuration=file:${path.join(dir, "log4j.properties")}`,
        `-Dkafka.logs.dir=${dir}`,
        `@${build.classpathArgFile}`,
        "kafka.Kafka",
        properties,
      ],
      logFile: path.join(dir, `broker-${id}.log`),
      name: `Kafka broker ${id}`,
    });
    jvms.push(jvm);
    return { id, port, kill: jvm.kill, terminate: jvm.terminate, isRunning: jvm.isRunning, logTail: jvm.logTail };
  }

  try {
    for (let id = 1; id <= options.count; id++) brokers.push(await start(id));
  } catch (error) {
    for (const jvm of jvms) jvm.dispose();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    brokers,
    async dispose() {
      for (const jvm of jvms) jvm.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
