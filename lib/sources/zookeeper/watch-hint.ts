import type { HoldHint } from "@/lib/poller/contract/hold-observation";

// ZooKeeper's change signals in the vocabulary the shared hold cycles decide on. Every one is a
// change: a watch says that a lock node's children (its contenders) or the node itself changed,
// never why. A contender's ephemeral node is deleted alike by its client (an unlock) and by the
// server when the client's session ends (an expiry), so a `deleted` or `children` watch cannot
// tell a release from an expiry: the read after it, the holder session's deadline (`dump`) and
// the clock do.

/** A watch fired on `key` (`created`, `deleted`, `changed`, `children`), or discovery found it (`found`). */
export function toZookeeperHint(key: string, event: string, at: string): HoldHint {
  return { key, kind: "change", event, at };
}
