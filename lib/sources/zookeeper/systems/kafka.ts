import { z } from "zod";

import { joinPath, znodePath } from "../znode-path";
import type { LockTarget, SystemRole } from "./system-role";

// Apache Kafka in ZooKeeper mode (up to 3.9): the controller is the broker whose ephemeral
// /controller node exists (ZkData.scala, ControllerZNode), JSON
// {"version":2,"brokerid":2,"timestamp":"<ms>","kraftControllerEpoch":-1}. Every election bumps the
// persistent /controller_epoch (a decimal number): Kafka's own count. The live brokers register
// under /brokers/ids/<id>: the standbys.

export const kafkaSchema = z
  .object({
    system: z.literal("kafka"),
    /** Kafka's chroot in ZooKeeper (zookeeper.connect's path): "/" or e.g. "/kafka". */
    root: znodePath.default("/"),
  })
  .strict();

const controllerSchema = z.looseObject({
  brokerid: z.number().int(),
  version: z.number().int().optional(),
  timestamp: z.string().optional(),
  kraftControllerEpoch: z.number().int().optional(),
});

export function parseKafkaController(data: Buffer): { holder: string; fields: Record<string, unknown> } {
  let json: unknown;
  try {
    json = JSON.parse(data.toString("utf8"));
  } catch {
    throw new Error("not JSON");
  }
  const parsed = controllerSchema.safeParse(json);
  if (!parsed.success) throw new Error("JSON without a numeric brokerid");
  const { brokerid, timestamp, version, kraftControllerEpoch } = parsed.data;
  const since = timestamp !== undefined && /^\d+$/.test(timestamp) ? new Date(Number(timestamp)).toISOString() : null;
  return {
    holder: `broker ${brokerid}`,
    fields: { brokerId: brokerid, electedAt: since, version: version ?? null, ...(kraftControllerEpoch === undefined ? {} : { kraftControllerEpoch }) },
  };
}

export function kafkaTargets(options: z.output<typeof kafkaSchema>): LockTarget[] {
  const role: SystemRole = {
    system: "kafka",
    describe: () => `Kafka controller${options.root === "/" ? "" : ` (${options.root})`}`,
    parseHolder: parseKafkaController,
    standbys: { path: () => joinPath(options.root, "brokers", "ids"), name: (child) => (/^\d+$/.test(child) ? `broker ${child}` : null) },
    electionCount: { path: () => joinPath(options.root, "controller_epoch"), name: "controller epoch" },
  };
  return [{ pattern: joinPath(options.root, "controller"), recipe: "ephemeral-node", mustBeHeld: true, role }];
}
