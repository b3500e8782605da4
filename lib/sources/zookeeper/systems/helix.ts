import { z } from "zod";

import { joinPath, znodePath } from "../znode-path";
import type { LockTarget } from "./system-role";

// Apache Helix (and Pinot, whose controllers are Helix controllers): the leading controller of a
// cluster owns the ephemeral /<cluster>/CONTROLLER/LEADER (DistributedLeaderElection), a ZNRecord
// as JSON: {"id":"<instance name>","simpleFields":{"HELIX_VERSION":..,"LIVE_INSTANCE":"pid@host",
// "SESSION_ID":..},...}. Controllers race for it: no queue, and no registry of standbys.

export const helixSchema = z
  .object({
    system: z.literal("helix"),
    /** The Helix cluster's name (a Pinot cluster's name). */
    cluster: z
      .string()
      .trim()
      .min(1)
      .regex(/^[^/]+$/, { message: "must be a cluster name, not a path" }),
    /** Helix's chroot in ZooKeeper. */
    root: znodePath.default("/"),
  })
  .strict();

const znRecordSchema = z.looseObject({
  id: z.string().min(1),
  simpleFields: z.record(z.string(), z.unknown()).optional(),
});

export function parseHelixLeader(data: Buffer): { holder: string; fields: Record<string, unknown> } {
  let json: unknown;
  try {
    json = JSON.parse(data.toString("utf8"));
  } catch {
    throw new Error("not JSON");
  }
  const parsed = znRecordSchema.safeParse(json);
  if (!parsed.success) throw new Error("not a ZNRecord with an id");
  const simple = parsed.data.simpleFields ?? {};
  const text = (value: unknown) => (typeof value === "string" ? value : null);
  return {
    holder: parsed.data.id,
    fields: {
      instance: parsed.data.id,
      liveInstance: text(simple.LIVE_INSTANCE),
      helixVersion: text(simple.HELIX_VERSION),
      sessionId: text(simple.SESSION_ID),
    },
  };
}

export function helixTargets(options: z.output<typeof helixSchema>): LockTarget[] {
  return [
    {
      pattern: joinPath(options.root, options.cluster, "CONTROLLER", "LEADER"),
      recipe: "ephemeral-node",
      mustBeHeld: true,
      role: { system: "helix", describe: () => `Helix controller of ${options.cluster}`, parseHolder: parseHelixLeader },
    },
  ];
}
