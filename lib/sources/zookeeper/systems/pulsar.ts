import { z } from "zod";

import { joinPath, znodePath } from "../znode-path";
import type { LockTarget } from "./system-role";

// Apache Pulsar's leader broker (the load manager's leader, LeaderElectionService), on a cluster
// whose metadata store is ZooKeeper: the ephemeral /loadbalance/leader on the broker's metadata
// session, LeaderBroker JSON. A real 4.2.4 (and 3.0.7) broker wrote
// {"brokerId":"127.0.0.1:41457","serviceUrl":"http://127.0.0.1:41457"}, the brokerId being what
// GET /admin/v2/brokers/leaderBroker names (tests/integration/poller/pulsar-load-manager-leader.test.ts);
// brokers before 3.0 wrote the serviceUrl alone. The brokers register under
// /loadbalance/brokers/<brokerId>: the standbys.

export const pulsarSchema = z
  .object({
    system: z.literal("pulsar"),
    /** The metadata store's chroot in ZooKeeper. */
    root: znodePath.default("/"),
  })
  .strict();

const leaderBrokerSchema = z.looseObject({ brokerId: z.string().min(1).optional(), serviceUrl: z.string().min(1).optional() });

export function parsePulsarLeader(data: Buffer): { holder: string; fields: Record<string, unknown> } {
  let json: unknown;
  try {
    json = JSON.parse(data.toString("utf8"));
  } catch {
    throw new Error("not JSON");
  }
  const parsed = leaderBrokerSchema.safeParse(json);
  const { brokerId, serviceUrl } = parsed.success ? parsed.data : {};
  const fromUrl = serviceUrl === undefined ? undefined : /^[a-z+]+:\/\/([^/]+)/.exec(serviceUrl)?.[1];
  const holder = brokerId ?? fromUrl;
  if (holder === undefined) throw new Error("JSON without brokerId or serviceUrl");
  return { holder, fields: { brokerId: brokerId ?? null, serviceUrl: serviceUrl ?? null } };
}

export function pulsarTargets(options: z.output<typeof pulsarSchema>): LockTarget[] {
  return [
    {
      pattern: joinPath(options.root, "loadbalance", "leader"),
      recipe: "ephemeral-node",
      mustBeHeld: true,
      role: {
        system: "pulsar",
        describe: () => "Pulsar leader broker",
        parseHolder: parsePulsarLeader,
        standbys: { path: () => joinPath(options.root, "loadbalance", "brokers"), name: (child) => child },
      },
    },
  ];
}
