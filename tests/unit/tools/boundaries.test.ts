import { describe, expect, it } from "vitest";

import { checkBoundaries, type ModuleText } from "@/tools/boundaries/check-boundaries";
import { readImports } from "@/tools/boundaries/read-imports";
import { readProjectModules } from "@/tools/boundaries/read-project-modules";

const module = (path: string, ...lines: string[]): ModuleText => ({ path, text: lines.join("\n") });

describe("Baton's own modules", () => {
  it("keep every boundary: the poller imports no kind, no kind another, lib no UI, clients no server module, and no import cycle", () => {
    const modules = readProjectModules(process.cwd());
    expect(modules.length).toBeGreaterThan(400);
    expect(checkBoundaries(modules)).toEqual([]);
  });
});

describe("readImports", () => {
  it("reads static, re-exported, side-effect and dynamic imports, and tells type-only ones", () => {
    const text = [
      'import "server-only";',
      'import type { A } from "@/lib/a";',
      'import { type B, type C } from "./b";',
      'import { type D, e } from "./d";',
      "import {",
      "  f,",
      "  g,",
      '} from "../f";',
      'export { h } from "./h";',
      'export type { I } from "./i";',
      'const runtime = await import("./runtime");',
      '// import { x } from "./commented";',
      ' * import { y } from "./in-a-doc-comment";',
    ].join("\n");
    expect(readImports(text)).toEqual([
      { specifier: "@/lib/a", isTypeOnly: true },
      { specifier: "./b", isTypeOnly: true },
      { specifier: "./d", isTypeOnly: false },
      { specifier: "../f", isTypeOnly: false },
      { specifier: "./h", isTypeOnly: false },
      { specifier: "./i", isTypeOnly: true },
      { specifier: "server-only", isTypeOnly: false },
      { specifier: "./runtime", isTypeOnly: false },
    ]);
  });
});

describe("checkBoundaries", () => {
  it("names a poller module that imports a kind, the config or the Pulsar client", () => {
    const lines = checkBoundaries([
      module(
        "lib/poller/loop.ts",
        'import { registry } from "@/lib/sources/registry";',
        'import type { X } from "../pulsar/x";',
        'import { config } from "@/lib/config";',
      ),
      module("lib/sources/registry.ts"),
      module("lib/pulsar/x.ts"),
      module("lib/config.ts"),
    ]);
    expect(lines.map((line) => line.split(" (")[0])).toEqual([
      "poller-knows-no-kind: lib/poller/loop.ts imports lib/sources/registry.ts",
      "poller-knows-no-kind: lib/poller/loop.ts imports lib/pulsar/x.ts",
      "poller-knows-no-kind: lib/poller/loop.ts imports lib/config.ts",
    ]);
  });

  it("names a kind that imports another kind, but not one importing its own folder or the shared seam", () => {
    const lines = checkBoundaries([
      module(
        "lib/sources/etcd/read.ts",
        'import { glob } from "@/lib/sources/redis/redis-glob";',
        'import { own } from "./own";',
        'import { fields } from "@/lib/sources/config-fields";',
      ),
      module("lib/sources/etcd/own.ts"),
      module("lib/sources/redis/redis-glob.ts"),
      module("lib/sources/config-fields.ts"),
    ]);
    expect(lines.map((line) => line.split(" (")[0])).toEqual(["no-kind-imports-another: lib/sources/etcd/read.ts imports lib/sources/redis/redis-glob.ts"]);
  });

  it("names each import cycle, type-only imports included, once", () => {
    const lines = checkBoundaries([
      module("lib/a.ts", 'import type { B } from "./b";'),
      module("lib/b.ts", 'import { c } from "./c";'),
      module("lib/c.ts", 'import { a } from "./a";'),
      module("lib/d.ts", 'import { a } from "./a";'),
    ]);
    expect(lines.map((line) => line.split(" (")[0])).toEqual(["no-cycles: lib/a.ts <-> lib/b.ts <-> lib/c.ts"]);
  });

  it("names a client module that reaches a server-only module through value imports, with the chain; type imports are fine", () => {
    const lines = checkBoundaries([
      module("components/cell.tsx", 'import { words } from "@/lib/board/words";', 'import type { Row } from "@/lib/db/rows";'),
      module("lib/board/words.ts", 'import { read } from "@/lib/db/read";'),
      module("lib/db/read.ts", 'import "server-only";'),
      module("lib/db/rows.ts", 'import "server-only";'),
      module("app/view.tsx", '"use client";', 'import type { Row } from "@/lib/db/rows";'),
      module("app/page.tsx", 'import { read } from "@/lib/db/read";'),
    ]);
    expect(lines.map((line) => line.split(" (")[0])).toEqual(["client-imports-no-server-module: components/cell.tsx -> lib/board/words.ts -> lib/db/read.ts"]);
  });

  it("names a client module that imports a kind's own module rather than its description; server pages and lib may", () => {
    const lines = checkBoundaries([
      module(
        "components/locks/cell.tsx",
        'import { redisDescription } from "@/lib/sources/redis/redis-description";',
        'import type { RedisClusterConfig } from "@/lib/sources/redis/redis-config";',
      ),
      module(
        "app/locks/view.tsx",
        '"use client";',
        'import { KIND_DESCRIPTIONS } from "@/lib/sources/kind-descriptions";',
        'import { glob } from "@/lib/sources/redis/redis-glob";',
      ),
      module("app/settings/page.tsx", 'import { isPulsarCluster } from "@/lib/sources/pulsar/pulsar-config";'),
      module("lib/board/words.ts", 'import { glob } from "@/lib/sources/redis/redis-glob";'),
      module("lib/sources/kind-descriptions.ts", 'import { redisDescription } from "@/lib/sources/redis/redis-description";'),
      module("lib/sources/redis/redis-description.ts"),
      module("lib/sources/redis/redis-config.ts"),
      module("lib/sources/redis/redis-glob.ts"),
      module("lib/sources/pulsar/pulsar-config.ts"),
    ]);
    expect(lines.map((line) => line.split(" (")[0])).toEqual([
      "client-imports-only-kind-descriptions: app/locks/view.tsx imports lib/sources/redis/redis-glob.ts",
      "client-imports-only-kind-descriptions: components/locks/cell.tsx imports lib/sources/redis/redis-config.ts",
    ]);
  });

  it("names a module outside the composition roots that imports the server registry", () => {
    const lines = checkBoundaries([
      module("lib/board/kinds.ts", 'import { SOURCE_KINDS } from "@/lib/sources/registry";'),
      module("lib/worker/start.ts", 'import { sourceKindOf } from "@/lib/sources/registry";'),
      module("lib/config.ts", 'import { findSourceKind } from "@/lib/sources/registry";'),
      module("lib/config-files.ts", 'import { findSourceKind } from "@/lib/sources/registry";'),
      module("lib/sources/registry.ts"),
    ]);
    expect(lines.map((line) => line.split(" (")[0])).toEqual([
      "registry-only-in-composition-roots: lib/board/kinds.ts imports lib/sources/registry.ts",
      "registry-only-in-composition-roots: lib/config-files.ts imports lib/sources/registry.ts",
    ]);
  });

  it("names lib importing the UI", () => {
    const lines = checkBoundaries([module("lib/queries/q.ts", 'import { Table } from "@/components/table";'), module("components/table.tsx")]);
    expect(lines.map((line) => line.split(" (")[0])).toEqual(["lib-imports-no-ui: lib/queries/q.ts imports components/table.tsx"]);
  });
});
