import { z } from "zod";

import { joinPath, znodePath } from "../znode-path";
import type { LockTarget } from "./system-role";

// Apache Pulsar's leader broker (the load manager's leader, LeaderElectionService): the
// ephemeral /loadbalance/leader, LeaderBroker JSON: {"brokerId":"host:8080","serviceUrl":
// "http://host:8080"} (brokerId since 3.0; serviceUrl alone before). The brokers register under
// /loadbalance/brokers/<host:port>: the standbys.

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
