import "server-only";

import { z } from "zod";

import { type AdminTarget, requestAdmin } from "@/lib/pulsar/transport";

// The brokers of a cluster, found through the admin API. Checked on a real 4.2.4 standalone:
// `GET /admin/v2/clusters` answers ["standalone"] and `GET /admin/v2/brokers/standalone` answers
// ["127.0.0.1:<web port>"], each broker's web service (admin API and /metrics/) as host:port.

const nameListSchema = z.array(z.string().min(1));

/** The web address of every active broker of every cluster the admin API knows, as base URLs. */
export async function listBrokerUrls(target: AdminTarget): Promise<string[]> {
  const clusters = await requestAdmin(target, "admin/v2/clusters", nameListSchema);
  // The admin URL's scheme is the one its brokers serve: https when the admin API is TLS.
  const scheme = new URL(target.adminUrl).protocol;
  const urls = new Set<string>();
  for (const cluster of clusters) {
    const brokers = await requestAdmin(target, `admin/v2/brokers/${encodeURIComponent(cluster)}`, nameListSchema);
    for (const broker of brokers) urls.add(`${scheme}//${broker.replace(/^[a-z]+:\/\//, "")}`);
  }
  return [...urls].sort();
}
