import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

// Every page and route handler under app/, as Next serves them: route groups vanish, [param]
// is one segment (":param"). The access-control tests walk it so that no route is forgotten.

export type AppRoute = { kind: "page" | "api"; path: string; file: string; methods: string[] };

const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

export function listAppRoutes(dir = path.join(process.cwd(), "app"), segments: string[] = []): AppRoute[] {
  const routes: AppRoute[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name.startsWith("_")) continue; // private folders are not routes
      const isGroup = /^\(.*\)$/.test(entry.name);
      routes.push(...listAppRoutes(full, isGroup ? segments : [...segments, entry.name.replace(/^\[\[?\.{0,3}(\w+)\]\]?$/, ":$1")]));
    } else if (/^page\.(tsx|ts|jsx|js)$/.test(entry.name)) {
      routes.push({ kind: "page", path: `/${segments.join("/")}`, file: full, methods: ["GET"] });
    } else if (/^route\.(ts|js)$/.test(entry.name)) {
      const source = readFileSync(full, "utf8");
      const methods = HTTP_METHODS.filter((method) => new RegExp(`export (const|async function|function) ${method}\\b`).test(source));
      routes.push({ kind: "api", path: `/${segments.join("/")}`, file: full, methods });
    }
  }
  return routes;
}

/** A concrete path for a pattern: `:id` becomes a value. */
export function concretePath(pattern: string): string {
  return pattern.replace(/:(\w+)/g, "example-$1");
}

/**
 * The methods Next serves on a route: a page answers GET and HEAD; a route handler its exported
 * methods, HEAD beside GET and OPTIONS (Next implements both when the handler does not).
 */
export function servedMethods(route: AppRoute): string[] {
  if (route.kind === "page") return ["GET", "HEAD"];
  const methods = new Set([...route.methods, "OPTIONS"]);
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods];
}
