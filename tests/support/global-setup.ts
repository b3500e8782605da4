// Vitest global setup for the integration project. `npm test` starts the test database and
// broker once for the whole run and passes them in the environment; a bare `npx vitest` run
// starts its own here and stops them afterwards.
import { startTestBroker, TEST_PULSAR_ADMIN_URL_ENV, TEST_PULSAR_WS_URL_ENV } from "@/tests/support/pulsar";
import { startTestDatabase, TEST_DATABASE_ENV } from "@/tests/support/test-database";
import { buildJavaParts } from "@/tests/support/test-servers";

export default async function setup(): Promise<() => Promise<void>> {
  const stops: (() => Promise<void>)[] = [];
  try {
    // Cached after the first build: a check of each part's stamp (npm test built them already).
    await buildJavaParts((line) => console.log(`[setup] ${line}`));
    if (!process.env[TEST_DATABASE_ENV]) {
      const database = await startTestDatabase();
      process.env[TEST_DATABASE_ENV] = database.url;
      stops.push(database.stop);
    }
    if (!process.env[TEST_PULSAR_ADMIN_URL_ENV]) {
      const broker = await startTestBroker();
      process.env[TEST_PULSAR_ADMIN_URL_ENV] = broker.adminUrl;
      process.env[TEST_PULSAR_WS_URL_ENV] = broker.wsUrl;
      stops.push(() => broker.stop());
    }
  } catch (error) {
    for (const stop of stops.reverse()) await stop();
    throw error;
  }
  return async () => {
    for (const stop of stops.reverse()) await stop();
  };
}
