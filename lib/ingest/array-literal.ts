import "server-only";

// PostgreSQL array literals for the ingest statement's unnest() parameters. pg encodes JS arrays
// itself, but escapes every element with two regex replaces; on the hot path most elements need
// no escaping, and this encoder costs about half as much (tests/bench). Every text element is
// quoted, so commas, braces, spaces and the word NULL inside values stay values.

const NEEDS_ESCAPE = /["\\]/;
const ESCAPED = /["\\]/g;

/** `{"a","b\"c",NULL}` for text[] (or any type whose input is text, e.g. jsonb). */
export function textArrayLiteral(values: readonly (string | null)[]): string {
  let literal = "{";
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    if (i > 0) literal += ",";
    if (value === null) literal += "NULL";
    else literal += `"${NEEDS_ESCAPE.test(value) ? value.replace(ESCAPED, "\\$&") : value}"`;
  }
  return `${literal}}`;
}

/** `{1,2,NULL}` for int4[] / float8[]: finite numbers only (validation guarantees it). */
export function numberArrayLiteral(values: readonly (number | null)[]): string {
  let literal = "{";
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    if (i > 0) literal += ",";
    literal += value === null ? "NULL" : String(value);
  }
  return `${literal}}`;
}
