import "server-only";

import type { z } from "zod";

import { ConfigError, describeConfigIssue } from "@/lib/config-files";
import type { ClusterKind } from "@/lib/db/generated/enums";

import type { CycleStates, SourceCycles, StoredShape } from "@/lib/poller/source-cycles";

/** What every cluster entry has, whatever its kind. */
export type BaseClusterConfig = { kind: string; name: string; pollIntervalMs: number };

/** A configured cluster in words: where it is reached, what is watched, its budget and credentials. */
/** `note`: what the server must allow for Baton to see everything (shown on the Clusters page). */
export type ClusterFacts = { endpoint: string; scope: string; budget: string; auth: string; note?: string };

/** The kinds of system a cluster row can be: the cluster_kind enum, which a kind's migration extends. */
export type ClusterKindName = ClusterKind;

/**
 * A kind of system Baton watches: how to configure it, how to read its held things, and how to
 * tell whether it answers. Everything else (scheduling within the budget, the poller lease and
 * epoch, storage, the read API and the pages) is shared. One folder per kind under
 * lib/sources/, one entry in registry.ts; its name, label and stored shape come from its
 * client-safe description (lib/sources/<kind>/<kind>-description.ts). This contract lives with
 * the core (lib/poller/contract/), below the kinds: kinds implement it, the poller is handed one
 * by the worker and imports none. Typed over the kind's parsed entry `E` (its config schema's
 * output) and its ready config `C`, so no kind casts what the configuration hands it.
 */
export type SourceKindSpec<C extends BaseClusterConfig, E> = {
  /** The `kind` of a cluster entry in the configuration. */
  kind: C["kind"];
  /** How people name it: "Pulsar", "Redis". */
  label: string;
  clusterKind: ClusterKindName;
  /** One cluster entry of this kind (with its `kind`), as the configuration gives it. */
  configSchema: z.ZodType<E>;
  /** The entry its schema parsed, made ready: secret files read, defaults applied. `setting` names it in errors. */
  resolveConfig(entry: E, setting: string, defaultPollIntervalMs: number): C;
  /** What the Clusters page and /api/health say of it (never a secret). */
  describe(config: C): ClusterFacts;
  /**
   * The watched scope as stored on the cluster row. A lock-like kind lists under `patterns` each
   * pattern its observations carry, `{ match, layout, mustBeHeld }`: the lock pages and health
   * rules read them (lib/board/lock-scope.ts).
   */
  scopeOf(config: C): Record<string, unknown>;
  /** What its cycles store (and a restarted poller loads): subscription partitions, or holds of its resource kind. */
  stored: StoredShape;
  /** Its cycles, resuming from the saved states, within the kind's own budget (requests or commands per second). */
  openCycles(config: C, saved: CycleStates, log: (line: string) => void): Promise<SourceCycles>;
  /** Configurations of this kind that cannot work side by side, each a one-line reason (the configuration is refused). */
  findConflicts?(configs: C[]): string[];
  /** Resolves when the system answers; throws with a one-line reason when it does not. */
  checkReachable(config: C, timeoutMs: number): Promise<{ status: "ok" | "degraded" | "down"; reason: string | null }>;
};

export type SourceKind<C extends BaseClusterConfig, E = unknown> = SourceKindSpec<C, E> & {
  /**
   * Parses a raw entry with the kind's own schema and makes it ready (`parseSettings(raw:
   * unknown): C`): what the configuration calls, whichever kind the entry names. A bad entry
   * throws a ConfigError naming the setting (`Invalid configuration: <setting>.url ...`).
   */
  parseConfig(raw: unknown, setting: string, defaultPollIntervalMs: number): C;
};

/** Keeps each kind's config types while the registry holds them side by side, and adds `parseConfig`. */
export function defineSourceKind<E, C extends BaseClusterConfig>(spec: SourceKindSpec<C, E>): SourceKind<C, E> {
  return {
    ...spec,
    parseConfig(raw, setting, defaultPollIntervalMs) {
      const parsed = spec.configSchema.safeParse(raw);
      if (!parsed.success) throw new ConfigError(describeConfigIssue(setting, raw, parsed.error));
      return spec.resolveConfig(parsed.data, setting, defaultPollIntervalMs);
    },
  };
}
