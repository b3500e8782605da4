import { readFileSync } from "node:fs";
import path from "node:path";

import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { LockNow } from "@/components/locks/lock-now";
import { describeBoardKind, filterLocks, isBoardKind, listBoardKinds, showsLocks, showsSubscriptions } from "@/lib/board/lock-filters";
import { LOCK_RESOURCE_KINDS, LOCK_SOURCE_KINDS, type LockRow } from "@/lib/board/lock-types";
import { ttlTermOf } from "@/lib/board/ttl-terms";
import { buildOpenApiDocument } from "@/lib/openapi/build-openapi-document";
import { NO_HOLD_STATS } from "@/lib/poller/hold-state";
import {
  ALL_KIND_DESCRIPTIONS,
  isLockSourceKind,
  KIND_DESCRIPTIONS,
  type KindName,
  lockDescriptionOf,
  type LockSourceKind,
  REGISTERED_KINDS,
  RESERVED_KIND_DESCRIPTIONS,
} from "@/lib/sources/kind-descriptions";
import { SOURCE_KINDS } from "@/lib/sources/registry";

// Every kind the server registry reads appears in every list derived from the descriptions, and
// no list names a kind that is not registered, but for the one reserved kind: Kubernetes Leases,
// which the database enums and the read API's `kind` have named since the first migration
// without Baton reading them (lib/sources/kind-descriptions.ts says why).

const registered = SOURCE_KINDS.map((kind) => kind.kind);
const RESERVED = ["kubernetes"];
const registeredLocks = SOURCE_KINDS.filter((kind) => kind.stored.shape === "hold").map((kind) => kind.kind);
const lockKindsListed = [...registeredLocks, ...RESERVED];

/** The values of one `enum` block of prisma/schema.prisma (comments and @@map left out). */
function readPrismaEnum(name: string): string[] {
  const schema = readFileSync(path.join(process.cwd(), "prisma", "schema.prisma"), "utf8");
  const block = new RegExp(`^enum ${name} \\{([\\s\\S]*?)^\\}`, "m").exec(schema);
  if (!block) throw new Error(`prisma/schema.prisma has no enum ${name}`);
  return block[1]!
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => /^[A-Z][A-Z0-9_]*$/.test(line));
}

/** Every `enum` of the OpenAPI document that lists a value of `among`, with where it is. */
function findOpenApiEnums(among: readonly string[]): { at: string; values: string[] }[] {
  const found: { at: string; values: string[] }[] = [];
  const walk = (node: unknown, at: string): void => {
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) walk(item, `${at}[${index}]`);
      return;
    }
    if (node === null || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "enum" && Array.isArray(value) && value.some((v) => among.includes(v))) found.push({ at, values: value });
      else walk(value, `${at}.${key}`);
    }
  };
  walk(buildOpenApiDocument(0), "document");
  return found;
}

function lockRow(sourceKind: LockRow["sourceKind"]): LockRow {
  const description = lockDescriptionOf(sourceKind);
  return {
    id: `c|k`,
    cluster: "c",
    sourceKind,
    resourceKind: description.resourceKind,
    key: "k",
    pattern: "k",
    layout: null,
    isMustBeHeld: false,
    holder: "pod-a",
    holderToken: "t",
    holderSince: null,
    expiresAt: null,
    ttlMs: null,
    waiters: [],
    isSplit: false,
    details: {},
    stats: NO_HOLD_STATS,
    firstSeenAt: "2026-11-24T10:00:00.000Z",
    lastObservedAt: null,
    staleSince: null,
    goneAt: null,
    lastChange: null,
    changesInWindow: 0,
    expiriesInHour: 0,
    next: description.predictNextHolder([], {}),
    health: "ok",
    flags: [],
    ended: [],
  };
}

describe("the kinds the server registry reads", () => {
  it("are the registered descriptions, in their order, each with the description's name, label, cluster kind and stored shape", () => {
    expect(registered).toEqual(KIND_DESCRIPTIONS.map((description) => description.kind));
    expect([...REGISTERED_KINDS]).toEqual(registered);
    for (const kind of SOURCE_KINDS) {
      const description = KIND_DESCRIPTIONS.find((d) => d.kind === kind.kind)!;
      expect({ label: kind.label, clusterKind: kind.clusterKind }).toEqual({ label: description.label, clusterKind: description.clusterKind });
      expect(kind.stored).toMatchObject(
        description.shape === "hold" ? { shape: "hold", resourceKind: description.resourceKind } : { shape: "subscription-partition" },
      );
    }
  });

  it("are literal unions of names: a kind outside them does not compile (tsc checks the expectations below)", () => {
    // @ts-expect-error Pulsar's subscriptions are no lock kind
    const notALock: LockSourceKind = "pulsar";
    // @ts-expect-error nobody described "consul"
    const notAKind: KindName = "consul";
    expect(isLockSourceKind(notALock) || isBoardKind(notAKind)).toBe(false);
  });

  it("leave exactly one reserved kind, which no server kind reads", () => {
    expect(RESERVED_KIND_DESCRIPTIONS.map((description) => description.kind)).toEqual(RESERVED);
    expect(registered.filter((kind) => RESERVED.includes(kind))).toEqual([]);
    expect(ALL_KIND_DESCRIPTIONS.map((description) => description.kind).sort()).toEqual([...registered, ...RESERVED].sort());
  });
});

describe("every list derived from the descriptions", () => {
  it("names every registered lock kind and the reserved one, and nothing else: the lock kinds and their resource kinds", () => {
    expect([...LOCK_SOURCE_KINDS].sort()).toEqual([...lockKindsListed].sort());
    const resourceKinds = SOURCE_KINDS.flatMap((kind) => (kind.stored.shape === "hold" ? [kind.stored.resourceKind] : []));
    expect([...LOCK_RESOURCE_KINDS].sort()).toEqual([...resourceKinds, "KUBERNETES_LEASE"].sort());
  });

  it("gives the board a filter and words for every kind, and no words for a kind it does not know", () => {
    for (const kind of [...registered, ...RESERVED]) {
      expect(isBoardKind(kind)).toBe(true);
      expect(describeBoardKind(kind)).not.toBe(kind);
    }
    expect(isBoardKind("consul")).toBe(false);
    expect(describeBoardKind("consul")).toBe("consul");
    expect(listBoardKinds([])).toEqual([...SOURCE_KINDS.filter((kind) => kind.stored.shape === "subscription-partition").map((kind) => kind.kind), "locks"]);
  });

  it("shows locks for every lock kind and subscriptions for every other kind, and filters the locks by each lock kind", () => {
    for (const kind of registered) {
      const isLock = registeredLocks.includes(kind);
      expect({ kind, locks: showsLocks(kind), subscriptions: showsSubscriptions(kind) }).toEqual({ kind, locks: isLock, subscriptions: !isLock });
    }
    const rows = lockKindsListed.map((kind) => ({ ...lockRow(kind as LockRow["sourceKind"]), id: kind, key: kind }));
    for (const kind of lockKindsListed) expect(filterLocks(rows, { cluster: null, kind, q: "" }).map((row) => row.key)).toEqual([kind]);
  });

  it("gives the lock page a title and a TTL term for every lock kind (the server kind's label, never the neutral fallback)", () => {
    const fallback = ttlTermOf("consul", {});
    for (const kind of lockKindsListed) {
      const serverLabel = SOURCE_KINDS.find((k) => k.kind === kind)?.label ?? lockDescriptionOf(kind as LockRow["sourceKind"]).label;
      const html = renderToStaticMarkup(
        createElement(LockNow, { lock: lockRow(kind as LockRow["sourceKind"]), nowMs: Date.parse("2026-11-24T10:00:00.000Z") }),
      );
      expect(html).toContain(`<h4>${serverLabel} details</h4>`);
      expect(ttlTermOf(kind, {}).source).not.toBe(fallback.source);
    }
  });

  it("lists every kind in the OpenAPI enums: the lock kinds in the locks' enums, the registered kinds in the health report's", () => {
    const enums = findOpenApiEnums([...registered, ...RESERVED, ...LOCK_RESOURCE_KINDS]);
    expect(enums.length).toBeGreaterThanOrEqual(5);
    const lockResourceKinds = [...LOCK_RESOURCE_KINDS];
    for (const { at, values } of enums) {
      const expected = values.some((v) => lockResourceKinds.includes(v as (typeof lockResourceKinds)[number]))
        ? lockResourceKinds
        : at.includes("HealthReport")
          ? registered
          : lockKindsListed;
      expect({ at, values: [...values].sort() }).toEqual({ at, values: [...expected].sort() });
    }
    expect(enums.some(({ at }) => at.includes("HealthReport"))).toBe(true);
    expect(enums.some(({ at }) => at.includes("/api/v1/locks"))).toBe(true);
  });

  it("matches the database enums: a cluster kind and a resource kind for every kind, read or reserved, and no other", () => {
    expect(readPrismaEnum("ClusterKind").sort()).toEqual(ALL_KIND_DESCRIPTIONS.map((description) => description.clusterKind).sort());
    expect(readPrismaEnum("ResourceKind").sort()).toEqual(ALL_KIND_DESCRIPTIONS.map((description) => description.resourceKind).sort());
  });
});
