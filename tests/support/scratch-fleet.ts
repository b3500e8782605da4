import { afterAll, beforeAll } from "vitest";

import { createFleet, type Fleet } from "@/tools/fleet/fleet";
import { createTestNamespace, getTestBroker } from "@/tests/support/pulsar";
import type { ScratchNamespace } from "@/tools/pulsar/admin-setup";

export type ScratchFleet = { scratch: ScratchNamespace; fleet: Fleet };

/**
 * For one test file: a scratch namespace on the test broker and a fleet of WebSocket clients,
 * made before its tests (the fields are set by then) and killed and deleted after them.
 */
export function useScratchFleet(prefix: string): ScratchFleet {
  const env = {} as ScratchFleet;
  beforeAll(async () => {
    env.scratch = await createTestNamespace(prefix);
    env.fleet = createFleet({ wsUrl: getTestBroker().wsUrl });
  });
  afterAll(async () => {
    await env.fleet?.shutdown("kill");
    await env.scratch?.cleanup();
  });
  return env;
}
