// `npm run token:create -- --name ci [--scope ingest|read|ingest,read]`, `npm run token:list`,
// `npm run token:revoke -- --name ci`: bearer tokens for the API, each with its scopes (ingest
// by default; "read" lets scripts and Grafana use the read API without a browser session). Works on DATABASE_URL or the embedded PostgreSQL (started
// for the command and stopped after; shared when `npm start` already runs it). Progress goes to
// stderr, results to stdout, so `npm run -s token:create -- --name ci > token.txt` captures
// only the token.
import { parseArgs } from "node:util";

import { createApiToken } from "@/lib/auth/create-api-token";
import { listApiTokens, type ApiTokenSummary } from "@/lib/auth/list-api-tokens";
import { revokeApiToken } from "@/lib/auth/revoke-api-token";
import { TokenError } from "@/lib/auth/token-error";
import { isValidTokenName, TOKEN_NAME_RULE } from "@/lib/auth/token-format";
import { parseTokenScopes, TOKEN_SCOPE_RULE, type TokenScope } from "@/lib/auth/token-scope";
import { ConfigError, loadConfig } from "@/lib/config";
import { createDb, type Db } from "@/lib/db/client";
import { prepareDatabase, StartupError } from "@/lib/launcher/prepare-database";

const USAGE = "usage: tools/token.ts create --name <name> [--scope ingest|read|ingest,read] | list | revoke --name <name>";

class UsageError extends Error {
  override name = "UsageError";
}

function log(line: string): void {
  console.error(`[baton] ${line}`);
}

function requireName(args: string[]): string {
  const { values } = parseArgs({ args, options: { name: { type: "string" } }, strict: true });
  if (!values.name) throw new UsageError(`--name is required (${USAGE})`);
  return values.name;
}

function formatTable(tokens: ApiTokenSummary[]): string {
  const header = ["NAME", "PREFIX", "SCOPES", "CREATED", "LAST USED", "REVOKED"];
  const rows = tokens.map((t) => [t.name, `${t.prefix}...`, t.scopes.join(","), t.createdAt, t.lastUsedAt ?? "never", t.revokedAt ?? "-"]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

type Command = { kind: "create"; name: string; scopes: TokenScope[] } | { kind: "list" } | { kind: "revoke"; name: string };

/** The command line, checked before any database is started. */
function parseCommand(argv: string[]): Command {
  const [command = "", ...args] = argv;
  switch (command) {
    case "create": {
      const { values } = parseArgs({ args, options: { name: { type: "string" }, scope: { type: "string" } }, strict: true });
      if (!values.name) throw new UsageError(`--name is required (${USAGE})`);
      const name = values.name;
      if (!isValidTokenName(name)) throw new UsageError(`invalid token name "${name}": use ${TOKEN_NAME_RULE}`);
      const scopes = parseTokenScopes(values.scope ?? "ingest");
      if (!scopes) throw new UsageError(`invalid scope "${values.scope}": use ${TOKEN_SCOPE_RULE}`);
      return { kind: "create", name, scopes };
    }
    case "list":
      parseArgs({ args, options: {}, strict: true });
      return { kind: "list" };
    case "revoke":
      return { kind: "revoke", name: requireName(args) };
    default:
      throw new UsageError(command ? `unknown command "${command}" (${USAGE})` : USAGE);
  }
}

async function runCommand(db: Db, command: Command): Promise<void> {
  switch (command.kind) {
    case "create": {
      const created = await createApiToken(db, command.name, command.scopes);
      log(`created token "${created.name}" (scopes: ${created.scopes.join(",")}); it is shown once, store it now:`);
      console.log(created.token);
      return;
    }
    case "list": {
      const tokens = await listApiTokens(db);
      console.log(tokens.length === 0 ? "no tokens (create one with npm run token:create -- --name <name>)" : formatTable(tokens));
      return;
    }
    case "revoke": {
      const revoked = await revokeApiToken(db, command.name);
      console.log(revoked.wasAlreadyRevoked ? `token "${revoked.name}" was already revoked at ${revoked.revokedAt}` : `revoked token "${revoked.name}"`);
      return;
    }
  }
}

async function main(): Promise<void> {
  const command = parseCommand(process.argv.slice(2));
  const database = await prepareDatabase(loadConfig(), log);
  const db = createDb(database.url);
  try {
    await runCommand(db, command);
  } finally {
    await db.$disconnect();
    await database.embedded?.stop();
  }
}

function reportFailure(error: unknown): never {
  const isExpected = error instanceof TokenError || error instanceof UsageError || error instanceof ConfigError || error instanceof StartupError;
  // parseArgs throws TypeErrors with ERR_PARSE_ARGS_* codes for unknown or malformed options.
  const isBadOption = typeof (error as { code?: unknown }).code === "string" && (error as { code: string }).code.startsWith("ERR_PARSE_ARGS");
  if (isExpected || isBadOption) console.error(`token: ${(error as Error).message}`);
  else console.error("token: failed:", error);
  process.exit(1);
}

// Exit explicitly: after applying migrations, the schema engine leaves a handle that keeps the
// process alive for about ten seconds more (lib/db/migrate.ts).
main().then(() => process.exit(0), reportFailure);
