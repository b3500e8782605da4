import "server-only";

import { readFileSync } from "node:fs";

import type { z } from "zod";

// What every part of the configuration shares: its one error type and reading a named file.

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** A file the configuration names (a token, a password, the config file), or a one-line ConfigError. */
export function readConfigText(setting: string, file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(
      `Invalid configuration: ${setting} names a file that cannot be read: ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
}

/** Settings whose values an error never repeats. */
const SECRET_SETTINGS = new Set(["token", "password", "digest"]);

function describePath(setting: string, issuePath: readonly PropertyKey[]): string {
  return issuePath.reduce<string>((acc, part) => (typeof part === "number" ? `${acc}[${part}]` : `${acc}.${String(part)}`), setting);
}

/** A value as an error shows it: JSON, cut at 60 characters, a URL's password (`//user:password@`) masked. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = (JSON.stringify(value) ?? String(value)).replace(/(\/\/[^/\s:@"]*:)[^@\s"]*@/g, "$1***@");
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function valueAt(root: unknown, issuePath: readonly PropertyKey[]): unknown {
  return issuePath.reduce<unknown>((node, key) => (node !== null && typeof node === "object" ? (node as Record<PropertyKey, unknown>)[key] : undefined), root);
}

/**
 * A parse failure as one line naming the setting, what it must be and what it got:
 * `Invalid configuration: BATON_CLUSTERS[0].patterns[0].match <message> (got "*")`. A secret's
 * value (a token, a password, a digest) is never repeated.
 */
export function describeConfigIssue(setting: string, input: unknown, error: z.ZodError): string {
  const issue = error.issues[0]!;
  const isSecret = issue.path.some((part) => typeof part === "string" && SECRET_SETTINGS.has(part));
  const got =
    issue.code === "unrecognized_keys"
      ? `unknown key "${issue.keys[0]}"`
      : isSecret
        ? "got a value that is not shown"
        : `got ${describeValue(valueAt(input, issue.path))}`;
  return `Invalid configuration: ${describePath(setting, issue.path)} ${issue.message} (${got})`;
}
