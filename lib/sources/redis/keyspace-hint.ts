import type { HoldHintKind } from "@/lib/poller/contract/hold-observation";

// Redis's change signals in the vocabulary the shared hold cycles decide on. Keyspace events name
// the command: a client's delete (`del`, `unlink`, `hdel` of a hash's field) is a release; Redis
// removing the key itself, at its TTL (`expired`: sent when Redis deletes the key, not when the
// TTL reaches 0) or under memory pressure (`evicted`), is an expiry. Every other event (`set`,
// `hset`, Redisson's `hincrby`, `expire` and `pexpire` of a renewal) is a change, and so are
// client tracking's invalidations, which name no event.

const RELEASE_EVENTS: ReadonlySet<string> = new Set(["del", "unlink", "hdel"]);
const EXPIRY_EVENTS: ReadonlySet<string> = new Set(["expired", "evicted"]);

/** The hint kind of a keyspace event (null: an invalidation from client tracking). */
export function kindOfKeyspaceEvent(event: string | null): HoldHintKind {
  if (event === null) return "change";
  if (RELEASE_EVENTS.has(event)) return "release";
  return EXPIRY_EVENTS.has(event) ? "expiry" : "change";
}
