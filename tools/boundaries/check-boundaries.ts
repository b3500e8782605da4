// Baton's import boundaries, over the modules' texts (read-imports.ts): a pure check that names
// each import that breaks a rule. `npm test` runs it (tests/unit/tools/boundaries.test.ts);
// `npm run check:boundaries` prints the same lines.

import path from "node:path";

import { type ImportEdge, readImports, readMarks } from "./read-imports";

export type ModuleText = { path: string; text: string };

type Edge = ImportEdge & { from: string; to: string };

/** An import one module may not make: `from` and `to` are project-relative paths. */
type ImportRule = { name: string; why: string; breaks(from: string, to: string): boolean };

const KIND_FOLDER = /^lib\/sources\/([^/]+)\//;
/** A kind's client-safe description: the one module of a kind's folder the pages may load. */
const KIND_DESCRIPTION = /^lib\/sources\/([^/]+)\/\1-description\.ts$/;
/** The modules that hand a kind to the rest: the worker, the configuration, health, the Clusters page's reads, the tools. */
const COMPOSITION_ROOTS = ["lib/worker/", "lib/config.ts", "lib/health/", "lib/clusters/", "tools/"];

export const IMPORT_RULES: ImportRule[] = [
  {
    name: "poller-knows-no-kind",
    why: "lib/poller is the kind-free core: the worker hands it a kind, and kinds implement lib/poller/contract",
    breaks: (from, to) => from.startsWith("lib/poller/") && (/^lib\/(sources|pulsar|worker)\//.test(to) || to === "lib/config.ts"),
  },
  {
    name: "no-kind-imports-another",
    why: "a kind's folder is its own: what kinds share lives below them (lib/sources/*.ts, lib/poller/contract)",
    breaks: (from, to) => {
      const [fromKind, toKind] = [from.match(KIND_FOLDER)?.[1], to.match(KIND_FOLDER)?.[1]];
      return fromKind !== undefined && toKind !== undefined && fromKind !== toKind;
    },
  },
  {
    name: "registry-only-in-composition-roots",
    why: "the server registry loads every kind's server part: only the composition roots pick a kind by name; the rest read the descriptions (lib/sources/kind-descriptions.ts)",
    // lib/poller is left to poller-knows-no-kind: one broken import, one line.
    breaks: (from, to) =>
      to === "lib/sources/registry.ts" &&
      !from.startsWith("lib/poller/") &&
      !COMPOSITION_ROOTS.some((root) => from === root || (root.endsWith("/") && from.startsWith(root))),
  },
  {
    name: "lib-imports-no-ui",
    why: "lib/ is below the pages: it never imports app/ or components/",
    breaks: (from, to) => from.startsWith("lib/") && /^(app|components)\//.test(to),
  },
];

const EXTENSIONS = ["", ".ts", ".tsx", ".mts", ".js", ".mjs", "/index.ts", "/index.tsx"];

/** The project module a specifier names ("@/lib/x", "./x"), or null for a package. */
function resolve(specifier: string, from: string, known: Set<string>): string | null {
  let base: string;
  if (specifier.startsWith("@/")) base = specifier.slice(2);
  else if (specifier.startsWith(".")) base = path.posix.join(path.posix.dirname(from), specifier);
  else return null;
  for (const extension of EXTENSIONS) if (known.has(base + extension)) return base + extension;
  // An ESM import of a TypeScript module may name it with ".js".
  const withoutJs = base.replace(/\.m?js$/, "");
  for (const extension of EXTENSIONS.slice(1)) if (known.has(withoutJs + extension)) return withoutJs + extension;
  return null;
}

/** Strongly connected components with more than one module (Tarjan), each sorted: the import cycles. */
function findCycles(modules: string[], edges: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  function visit(module: string): void {
    index.set(module, counter);
    low.set(module, counter);
    counter += 1;
    stack.push(module);
    onStack.add(module);
    for (const next of edges.get(module) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(module, Math.min(low.get(module)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(module, Math.min(low.get(module)!, index.get(next)!));
    }
    if (low.get(module) !== index.get(module)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== module);
    if (component.length > 1 || (edges.get(module) ?? []).includes(module)) cycles.push(component.sort());
  }
  for (const module of modules) if (!index.has(module)) visit(module);
  return cycles;
}

/** Whether a module is part of a kind other than its client-safe description. */
function isKindInternal(module: string): boolean {
  return KIND_FOLDER.test(module) && !KIND_DESCRIPTION.test(module);
}

/**
 * The server-only modules a client module reaches through value imports (types are erased), with
 * the path that reaches the first: a client component must import only types from them.
 */
function findServerOnlyReach(start: string, valueEdges: Map<string, string[]>, isServerOnly: (module: string) => boolean): string[] | null {
  const cameFrom = new Map<string, string | null>([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const module = queue.shift()!;
    if (module !== start && isServerOnly(module)) {
      const chain = [module];
      for (let at = cameFrom.get(module); at; at = cameFrom.get(at)) chain.unshift(at);
      return chain;
    }
    for (const next of valueEdges.get(module) ?? []) {
      if (cameFrom.has(next)) continue;
      cameFrom.set(next, module);
      queue.push(next);
    }
  }
  return null;
}

/** Every broken boundary, one line each; empty when the house is in order. */
export function checkBoundaries(modules: ModuleText[]): string[] {
  const known = new Set(modules.map((module) => module.path));
  const marks = new Map(modules.map((module) => [module.path, readMarks(module.text)]));
  const edges: Edge[] = modules.flatMap((module) =>
    readImports(module.text).flatMap((edge) => {
      const to = resolve(edge.specifier, module.path, known);
      return to ? [{ ...edge, from: module.path, to }] : [];
    }),
  );
  const lines: string[] = [];
  for (const edge of edges) {
    for (const rule of IMPORT_RULES) {
      if (rule.breaks(edge.from, edge.to)) lines.push(`${rule.name}: ${edge.from} imports ${edge.to} (${rule.why})`);
    }
  }
  const allEdges = new Map<string, string[]>();
  const valueEdges = new Map<string, string[]>();
  for (const edge of edges) {
    allEdges.set(edge.from, [...(allEdges.get(edge.from) ?? []), edge.to]);
    if (!edge.isTypeOnly) valueEdges.set(edge.from, [...(valueEdges.get(edge.from) ?? []), edge.to]);
  }
  for (const cycle of findCycles([...known].sort(), allEdges))
    lines.push(`no-cycles: ${cycle.join(" <-> ")} (type-only imports count: read each module from the bottom up)`);
  for (const module of [...known].sort()) {
    const isClient = marks.get(module)!.isClient || module.startsWith("components/");
    if (!isClient) continue;
    const chain = findServerOnlyReach(module, valueEdges, (other) => marks.get(other)!.isServerOnly);
    if (chain) lines.push(`client-imports-no-server-module: ${chain.join(" -> ")} (a client module imports only types from server-only modules)`);
    for (const to of new Set(allEdges.get(module) ?? [])) {
      if (isKindInternal(to))
        lines.push(
          `client-imports-only-kind-descriptions: ${module} imports ${to} (a client module reads a kind through its <kind>-description.ts, or lib/sources/kind-descriptions.ts)`,
        );
    }
  }
  return lines;
}
