import { z } from "zod";

import { joinPath, znodePath } from "../znode-path";
import type { LockTarget } from "./system-role";

// Apache BookKeeper's auditor (every Pulsar cluster's bookies run one): AuditorElector's votes
// V_<seq> under <ledgers root>/underreplication/auditorelection (the bookkeeper-auditor recipe);
// the lowest vote is the auditor, its data names its bookie.

export const bookkeeperSchema = z
  .object({
    system: z.literal("bookkeeper"),
    /** zkLedgersRootPath (Pulsar's bookies: /ledgers). */
    ledgersRoot: znodePath.default("/ledgers"),
  })
  .strict();

export function bookkeeperTargets(options: z.output<typeof bookkeeperSchema>): LockTarget[] {
  return [
    {
      pattern: joinPath(options.ledgersRoot, "underreplication", "auditorelection"),
      recipe: "bookkeeper-auditor",
      mustBeHeld: true,
      role: { system: "bookkeeper", describe: () => "BookKeeper auditor" },
    },
  ];
}
