import { segmentsOf } from "../znode-path";

/** The segments of `path` that the `*` segments of `pattern` stand for ("/hadoop-ha/*\/lock", "/hadoop-ha/ns1/lock" -> ["ns1"]). */
export function readWildcards(pattern: string, path: string): string[] {
  const patternParts = segmentsOf(pattern);
  const pathParts = segmentsOf(path);
  return patternParts.flatMap((part, index) => (part === "*" ? [pathParts[index] ?? "?"] : []));
}
