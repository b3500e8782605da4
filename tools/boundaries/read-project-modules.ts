import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

import type { ModuleText } from "./check-boundaries";

/** The folders (and files) whose modules the boundaries cover: the product and its tools, not the tests. */
export const CHECKED_ROOTS = ["app", "components", "lib", "tools", "proxy.ts"];
const SKIPPED = new Set(["node_modules", "generated", "target", ".next"]);
const MODULE = /\.(ts|tsx|mts)$/;

function walk(root: string, relative: string, into: ModuleText[]): void {
  const full = path.join(root, relative);
  if (MODULE.test(relative)) {
    into.push({ path: relative.split(path.sep).join("/"), text: readFileSync(full, "utf8") });
    return;
  }
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(full, { withFileTypes: true });
  } catch {
    return; // a listed root that is a file of another type, or absent
  }
  for (const entry of entries) {
    if (SKIPPED.has(entry.name)) continue;
    if (entry.isDirectory() || MODULE.test(entry.name)) walk(root, path.join(relative, entry.name), into);
  }
}

export function readProjectModules(root: string): ModuleText[] {
  const modules: ModuleText[] = [];
  for (const checked of CHECKED_ROOTS) walk(root, checked, modules);
  return modules;
}
