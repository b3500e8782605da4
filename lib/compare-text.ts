// Ordinal string order (by UTF-16 code unit): the same on every machine and in every process,
// and cheap enough for 10,000 rows. Not `localeCompare`: its first call loads ICU's collation
// data, about 10 MB of the worker's memory (docs/scale.md, "The worker's memory"), to order
// identifiers (topic, table, service names) that have no language. Client-safe.

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
