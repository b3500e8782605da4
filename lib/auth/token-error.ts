import "server-only";

/** A token operation that cannot be done as asked; the message is one line for the CLI. */
export class TokenError extends Error {
  override name = "TokenError";
}
