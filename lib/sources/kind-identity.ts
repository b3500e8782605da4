// What a server kind (lib/sources/<kind>/<kind>-kind.ts) takes from its client-safe description
// rather than saying again: its name, label, cluster kind and the shape its cycles store.

import type { StoredShape } from "@/lib/poller/source-cycles";
import type { KindDescription } from "@/lib/sources/kind-description";

export type KindIdentity<D extends KindDescription> = { kind: D["kind"]; label: string; clusterKind: D["clusterKind"]; stored: StoredShape };

/** `movingDetails`: the keys of a hold kind's details that move on every read of an unchanged hold (StoredShape). */
export function identityOf<D extends KindDescription>(description: D, options: { movingDetails?: readonly string[] } = {}): KindIdentity<D> {
  const stored: StoredShape =
    description.shape === "hold"
      ? { shape: "hold", resourceKind: description.resourceKind, ...(options.movingDetails ? { movingDetails: options.movingDetails } : {}) }
      : { shape: "subscription-partition" };
  return { kind: description.kind, label: description.label, clusterKind: description.clusterKind, stored };
}
