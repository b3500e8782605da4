// Vitest global setup for the integration project. `npm test` starts the test database and
// broker once for the whole run and passes them in the environment; a bare `npx vitest` run
// starts its own here and stops them afterwards.
import { startTestDatabase, TEST_DATABASE_ENV } from "@/tests/support/test-database";

export default async function setup(): Promise<() => Promise<void>> {
  const stops: (() => Promise<void>)[] = [];
  if (!process.env[TEST_DATABASE_ENV]) {
    const database = await startTestDatabase();
    process.env[TEST_DATABASE_ENV] = database.url;
    stops.push(database.stop);
  }
  return async () => {
    for (const stop of stops.reverse()) await stop();
  };
}
