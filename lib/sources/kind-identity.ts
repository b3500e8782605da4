// What a server kind (lib/sources/<kind>/<kind>-kind.ts) takes from its client-safe description
// rather than saying again: its name, label, cluster kind and the shape its cycles store.

import type { StoredShape } from "@/lib/poller/source-cycles";
import type { KindDescription } from "@/lib/sources/kind-description";

export type KindIdentity<D extends KindDescription> = { kind: D["kind"]; label: string; clusterKind: D["clusterKind"]; stored: StoredShape };

export function identityOf<D extends KindDescription>(description: D): KindIdentity<D> {
  const stored: StoredShape = description.shape === "hold" ? { shape: "hold", resourceKind: description.resourceKind } : { shape: "subscription-partition" };
  return { kind: description.kind, label: description.label, clusterKind: description.clusterKind, stored };
}
