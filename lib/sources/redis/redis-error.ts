// One error type for everything that goes wrong talking to Redis, with a message that says
// which master and what happened in words an operator can act on.

export class RedisSourceError extends Error {
  override name = "RedisSourceError";
  constructor(
    /** host:port of the master, or the source name when no master is involved. */
    readonly master: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`Redis ${master}: ${message}`, options);
  }
}

function describeCause(error: unknown, timeoutMs: number): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === "ECONNREFUSED") return "connection refused (is Redis running and the port right?)";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `host not found (${message})`;
  if (code === "ECONNRESET" || code === "EPIPE") return "connection reset";
  if (/Command timed out/i.test(message) || code === "ETIMEDOUT") return `no answer within ${timeoutMs} ms`;
  if (/max retries per request|Connection is closed|Stream isn't writeable|enableOfflineQueue/i.test(message)) return "not connected (reconnecting)";
  if (/^(NOAUTH|WRONGPASS)/.test(message)) return `authentication failed (${message}): check password or passwordFile`;
  if (/self[- ]signed|certificate|SSL|TLS/i.test(message)) return `TLS failed (${message}): check tls.caFile or tls.rejectUnauthorized`;
  return message;
}

/** Wraps anything thrown by ioredis (or a socket) in a RedisSourceError naming the master. */
export function toRedisSourceError(error: unknown, master: string, timeoutMs: number): RedisSourceError {
  if (error instanceof RedisSourceError) return error;
  return new RedisSourceError(master, describeCause(error, timeoutMs), { cause: error });
}
