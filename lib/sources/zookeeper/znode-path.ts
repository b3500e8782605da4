import { z } from "zod";

/** A ZooKeeper path: absolute, no trailing slash, no empty or relative segments. */
export const znodePath = z
  .string()
  .trim()
  .refine((value) => value === "/" || /^(\/[^/\u0000]+)+$/.test(value), {
    message: "must be an absolute ZooKeeper path such as /locks/daily-job (no trailing '/')",
  })
  .refine((value) => !value.split("/").some((part) => part === "." || part === ".."), { message: "must not contain '.' or '..' segments" });

/** A path below `parent` ("/" + "controller" -> "/controller"). */
export function joinPath(parent: string, ...names: string[]): string {
  const rest = names.join("/");
  return parent === "/" ? `/${rest}` : `${parent}/${rest}`;
}

/** The directory holding `path` ("/a/b" -> "/a", "/a" -> "/"). */
export function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash <= 0 ? "/" : path.slice(0, slash);
}

/** The path's segments ("/a/b" -> ["a", "b"]). */
export function segmentsOf(path: string): string[] {
  return path.split("/").filter(Boolean);
}
