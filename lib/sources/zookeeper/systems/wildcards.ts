import { segmentsOf } from "../znode-path";

/** Answers kept, by pattern and path: a system asks for the same lock's wildcards several times a read (its name, its standbys', its side nodes' paths). */
const known = new Map<string, readonly string[]>();
/** Past this many, the kept answers are dropped and kept again as asked (paths come and go with discovery). */
const MAX_KNOWN = 100_000;

/** The segments of `path` that the `*` segments of `pattern` stand for ("/hadoop-ha/*\/lock", "/hadoop-ha/ns1/lock" -> ["ns1"]). */
export function readWildcards(pattern: string, path: string): readonly string[] {
  const key = `${pattern}\n${path}`;
  let wildcards = known.get(key);
  if (wildcards === undefined) {
    const pathParts = segmentsOf(path);
    wildcards = segmentsOf(pattern).flatMap((part, index) => (part === "*" ? [pathParts[index] ?? "?"] : []));
    if (known.size >= MAX_KNOWN) known.clear();
    known.set(key, wildcards);
  }
  return wildcards;
}
