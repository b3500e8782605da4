// One error type for everything that goes wrong talking to etcd, with a message that says which
// member and what happened in words an operator can act on.

export type EtcdErrorKind =
  /** Connection refused, DNS, TLS: nothing answered. */
  | "unreachable"
  | "timeout"
  /** The member answered with an error (auth, permission, a gRPC status). */
  | "answer"
  /** The member answered 2xx with a body that does not match the schema. */
  | "invalid-response";

export class EtcdSourceError extends Error {
  override name = "EtcdSourceError";
  constructor(
    readonly kind: EtcdErrorKind,
    /** host:port of the member, or the source name when no member is involved. */
    readonly member: string,
    message: string,
    /** The HTTP status of an answer. */
    readonly status?: number,
  ) {
    super(`etcd ${member}: ${message}`);
  }

  /** Another member may answer where this one did not. */
  get isTransient(): boolean {
    return this.kind === "unreachable" || this.kind === "timeout" || (this.status !== undefined && this.status >= 500);
  }
}

/** What a failed request says about the connection, from its code or its cause's (refused, reset, TLS). */
export function describeNetworkError(error: unknown): string {
  const direct = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const cause = direct.code ? direct : direct.cause;
  const code = cause?.code;
  if (code === "ECONNREFUSED") return "connection refused (is etcd running and the client port right?)";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `host not found (${cause?.message ?? code})`;
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET") return "connection reset";
  if (code && /CERT|SSL|TLS|SELF_SIGNED/i.test(code)) return `TLS failed (${code}): check tls.caFile or tls.rejectUnauthorized`;
  if (code) return `${code}${cause?.message ? `: ${cause.message}` : ""}`;
  return cause?.message ?? (error as Error).message;
}
