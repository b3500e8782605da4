import { z } from "zod";

import { joinPath, znodePath } from "../znode-path";
import { createPatroniInterpreter } from "./patroni-cluster";
import type { LockTarget } from "./system-role";
import { readWildcards } from "./wildcards";

// Patroni on ZooKeeper (dcs/zookeeper.py): the primary's member owns the ephemeral
// <namespace>/<scope>/leader, whose data is its member name; every member registers the
// ephemeral <namespace>/<scope>/members/<name> (JSON: role, state, timeline, WAL position) with the
// same Kazoo session, whose timeout is Patroni's `ttl`. One lock per scope; the members are its
// standbys, the failover and history nodes beside it tell a switchover (patroni-cluster.ts).

export const patroniSchema = z
  .object({
    system: z.literal("patroni"),
    /** Patroni's `namespace`. */
    namespace: znodePath.default("/service"),
    /** One cluster's `scope`; without it, every scope under the namespace. */
    scope: z
      .string()
      .trim()
      .min(1)
      .regex(/^[^/]+$/, { message: "must be a scope name, not a path" })
      .optional(),
  })
  .strict();

export function parsePatroniLeader(data: Buffer): { holder: string; fields: Record<string, unknown> } {
  const name = data.toString("utf8").trim();
  if (name === "" || name.includes("\uFFFD") || /[\u0000-\u001f\u007f\s]/.test(name) || name.length > 200) throw new Error("not a member name");
  return { holder: name, fields: {} };
}

export function patroniTargets(options: z.output<typeof patroniSchema>): LockTarget[] {
  const pattern = joinPath(options.namespace, options.scope ?? "*", "leader");
  const scopeOf = (path: string) => options.scope ?? readWildcards(pattern, path)[0] ?? "?";
  return [
    {
      pattern,
      recipe: "ephemeral-node",
      mustBeHeld: true,
      role: {
        system: "patroni",
        describe: (path) => `Patroni cluster ${scopeOf(path)}`,
        parseHolder: parsePatroniLeader,
        standbys: { path: (path) => joinPath(options.namespace, scopeOf(path), "members"), name: (child) => child, isDataRead: true },
        sideNodes: (path) => ({
          failover: joinPath(options.namespace, scopeOf(path), "failover"),
          history: joinPath(options.namespace, scopeOf(path), "history"),
        }),
        createInterpreter: () => createPatroniInterpreter(scopeOf),
      },
    },
  ];
}
