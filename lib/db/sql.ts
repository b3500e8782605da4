// SQL statements built from tagged templates: sql`... ${value} ...` keeps values apart from the
// text (sent as parameters), and a nested sql`...` fragment is spliced in as SQL. These are
// Prisma.sql, Prisma.join, Prisma.raw and Prisma.empty, from the small package the Prisma client
// itself takes them from: a module that only builds SQL does not load the client (and its
// WebAssembly query compiler) by importing them. Every module builds its SQL with these rather
// than with the Prisma namespace's: a fragment nests only in a template of its own class.
import { sql } from "@prisma/client-runtime-utils";

export { empty, join, raw, Sql, sql } from "@prisma/client-runtime-utils";

/** An instant (epoch ms) as a timestamptz literal parameter. */
export const timestampSql = (value: number) => sql`${new Date(value).toISOString()}::timestamptz`;
