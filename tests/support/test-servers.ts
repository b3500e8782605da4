import { startTestBroker, TEST_PULSAR_ADMIN_URL_ENV, TEST_PULSAR_WS_URL_ENV } from "@/tests/support/pulsar";
import { startTestDatabase, TEST_DATABASE_ENV } from "@/tests/support/test-database";

/**
 * Starts the throwaway PostgreSQL and the Pulsar broker that the integration and browser tests
 * share, unless the environment already names them, and puts their addresses into `env`. Each
 * started server's stop is pushed onto `cleanups`, to run also on failure and on Ctrl-C.
 */
export async function startTestServers(env: NodeJS.ProcessEnv, log: (line: string) => void, cleanups: (() => Promise<void>)[]): Promise<void> {
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
