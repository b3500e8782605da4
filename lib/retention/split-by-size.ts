// Sharing out tables among workers that drop them at once. Pure.

/**
 * Splits the tables into at most `groups` lists of about the same bytes: the biggest first, each
 * to the list with the fewest bytes so far.
 */
export function splitBySize<T extends { bytes: number }>(tables: T[], groups: number): T[][] {
  const lists = Array.from({ length: Math.min(groups, tables.length) }, () => ({ bytes: 0, tables: [] as T[] }));
  for (const table of [...tables].sort((a, b) => b.bytes - a.bytes)) {
    const lightest = lists.reduce((min, list) => (list.bytes < min.bytes ? list : min));
    lightest.tables.push(table);
    lightest.bytes += table.bytes;
  }
  return lists.map((list) => list.tables);
}
