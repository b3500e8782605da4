import { ensureCuratorContenderBuilt } from "@/tools/curator/build-contender";
import { ensureDbLockContenderBuilt } from "@/tools/db-lock-contender/build-contender";
import { ensureDynamodbContenderBuilt } from "@/tools/dynamodb-contender/build-contender";
import { ensureDynamodbServerBuilt } from "@/tools/dynamodb-server/build-server";
import { ensureQuartzContenderBuilt } from "@/tools/quartz-contender/build-contender";
import { ensureContenderBuilt as ensureRedissonContenderBuilt } from "@/tools/redisson/build-contender";
import { ensureBrokerBuilt, PULSAR_VERSIONS, type PulsarVersion } from "@/tools/pulsar/build-launcher";
import { ensureZookeeperServerBuilt } from "@/tools/zookeeper/build-server";
import { ensureJavaClientBuilt } from "@/tests/support/java-exclusivity-worker";
import { ensureBookkeeperAuditorBuilt } from "@/tests/support/bookkeeper-auditors";
import { ensureHadoopElectorBuilt } from "@/tests/support/hadoop-electors";
import { ensureHbaseMasterBuilt } from "@/tests/support/hbase-masters";
import { ensureHelixBuilt } from "@/tests/support/helix-controllers";
import { ensureMariadbJdbcClientBuilt } from "@/tests/support/mariadb-jdbc-clients";
import { ensureKafkaBrokerBuilt } from "@/tests/support/kafka-brokers";
import { startTestBroker, TEST_PULSAR_ADMIN_URL_ENV, TEST_PULSAR_WS_URL_ENV } from "@/tests/support/pulsar";
import { ensureSolrOverseerBuilt } from "@/tests/support/solr-overseers";
import { startTestDatabase, TEST_DATABASE_ENV } from "@/tests/support/test-database";

/**
 * Starts the throwaway PostgreSQL and the Pulsar broker that the integration and browser tests
 * share, unless the environment already names them, and puts their addresses into `env`. Each
 * started server's stop is pushed onto `cleanups`, to run also on failure and on Ctrl-C.
 */
export async function startTestServers(env: NodeJS.ProcessEnv, log: (line: string) => void, cleanups: (() => Promise<void>)[]): Promise<void> {
  await buildJavaParts(log);
  if (!env[TEST_DATABASE_ENV]) {
    log("starting a throwaway PostgreSQL...");
    const database = await startTestDatabase();
    cleanups.push(database.stop);
    env[TEST_DATABASE_ENV] = database.url;
  }
  if (!env[TEST_PULSAR_ADMIN_URL_ENV]) {
    log("starting a Pulsar broker (the first run downloads its jars through Maven)...");
    const broker = await startTestBroker({ log });
    cleanups.push(() => broker.stop());
    env[TEST_PULSAR_ADMIN_URL_ENV] = broker.adminUrl;
    env[TEST_PULSAR_WS_URL_ENV] = broker.wsUrl;
    log(`broker ${broker.version} up in ${(broker.startupMs / 1000).toFixed(1)} s at ${broker.adminUrl}`);
  }
}

/**
 * Builds (or finds cached) every Java part the tests start: the brokers of every Pulsar version
 * (the owner-rules and fixture tests start a 3.0.7 broker beside the shared 4.2.4 one), the lock
 * servers, the contenders and the Java exclusivity client.
 * Done here, before any test, so that a first run's Maven download on a busy machine is never
 * counted against a test's or a hook's time bound. One at a time: Maven is CPU-bound.
 */
export async function buildJavaParts(log: (line: string) => void): Promise<void> {
  for (const version of Object.keys(PULSAR_VERSIONS) as PulsarVersion[]) await ensureBrokerBuilt(version, { log });
  const parts = [
    ensureZookeeperServerBuilt,
    ensureCuratorContenderBuilt,
    ensureRedissonContenderBuilt,
    ensureDynamodbServerBuilt,
    ensureDynamodbContenderBuilt,
    ensureDbLockContenderBuilt,
    ensureQuartzContenderBuilt,
    ensureMariadbJdbcClientBuilt,
    ensureJavaClientBuilt,
    ensureKafkaBrokerBuilt,
    ensureHelixBuilt,
    ensureHadoopElectorBuilt,
    ensureHbaseMasterBuilt,
    ensureSolrOverseerBuilt,
    ensureBookkeeperAuditorBuilt,
  ];
  for (const build of parts) await build({ log });
}
