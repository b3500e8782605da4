// A broker of one release for a test file: the run's broker when it is that version, otherwise
// one started for the file on free ports (stop() stops it; for the run's broker it does nothing).

import { getTestBroker, startTestBroker, type TestBroker } from "@/tests/support/pulsar";
import type { PulsarVersion } from "@/tools/pulsar/build-launcher";

export type VersionedBroker = TestBroker & { version: string; stop(): Promise<void> };

/** GET /admin/v2/brokers/version: the version string, e.g. "4.2.4". */
export async function readBrokerVersion(adminUrl: string): Promise<string> {
  const response = await fetch(`${adminUrl}/admin/v2/brokers/version`, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`GET /admin/v2/brokers/version answered HTTP ${response.status}`);
  return (await response.text()).trim().replace(/^"|"$/g, "");
}

export async function startBrokerOfVersion(version: PulsarVersion): Promise<VersionedBroker> {
  const runBroker = getTestBroker();
  if ((await readBrokerVersion(runBroker.adminUrl)) === version) return { ...runBroker, version, stop: async () => {} };
  const handle = await startTestBroker({ version });
  return { adminUrl: handle.adminUrl, wsUrl: handle.wsUrl, version, stop: () => handle.stop() };
}
