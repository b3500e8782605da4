import type { ZookeeperRecipe } from "./zookeeper-config";

// How the lock recipes lay out their contenders under a lock node, and who of them holds it.
// Pure. Every recipe here is the same queue: each contender creates an ephemeral sequential
// child, the lowest sequence holds the lock (or leads), the others wait in sequence order.
//   Curator InterProcessMutex, LeaderSelector: _c_<uuid>-lock-<seq>  (data: IP, or the selector's id)
//   Curator LeaderLatch:                         _c_<uuid>-latch-<seq> (data: the participant id)
//   Kazoo Lock, Election:                        <uuid hex>__lock__<seq> (data: the identifier)
//   Curator InterProcessSemaphoreMutex:          leases/_c_<uuid>-lease-<seq> (data: IP), beside
//     locks/_c_<uuid>-lock-<seq>, a mutex a contender holds only while it queues its lease
//     (seen with Curator 5.7.1: the holder is the lowest lease; the next contender's lease waits)
//   go-zookeeper zk.Lock (Vault HA on ZooKeeper): _c_<32 hex>-lock-<seq> (CreateProtectedEphemeralSequential
//     writes the 16 random bytes of its guid with %x; data: what LockWithData wrote, often nothing)
//   Solr LeaderElector (overseer, shard leaders):  <session id>-<node or core node name>-n_<seq>
//     (data: none; the name carries the contender's node name)
//   BookKeeper AuditorElector:                    V_<seq> (data: AuditorVoteFormat as protobuf
//     text, `bookieId: "host:3181"`)
// The `_c_<uuid>-` prefix is Curator's protection against orphaned nodes; older Curator
// versions and other clients without it write `lock-<seq>`. Sequences are compared as numbers
// (ZooKeeper pads them to 10 digits, and wraps to negative past 2^31, which no lock reaches).

export type ConcreteRecipe = Exclude<ZookeeperRecipe, "auto"> | "curator-semaphore-mutex";

/** The child of a semaphore mutex's node that holds its leases: the contenders are read there. */
export const SEMAPHORE_LEASES = "leases";

/** `label`: the contender's name as its node's name tells it (Solr's node name), for when its data names nobody. */
export type Contender = { name: string; recipe: ConcreteRecipe; sequence: number; protectionId: string | null; label?: string };

const CURATOR_LOCK = /^(?:_c_([0-9a-f-]{36})-)?lock-(\d{10})$/;
const GO_ZOOKEEPER_LOCK = /^_c_([0-9a-f]{32})-lock-(\d{10})$/;
const CURATOR_LATCH = /^(?:_c_([0-9a-f-]{36})-)?latch-(\d{10})$/;
const KAZOO_LOCK = /^([^_]*)__lock__(\d{10})$/;
const CURATOR_LEASE = /^(?:_c_([0-9a-f-]{36})-)?lease-(\d{10})$/;
// Solr's session id is a Java long in decimal (negative for server ids past 127).
const SOLR_ELECTION = /^(-?\d+)-(.+)-n_(\d{10})$/;
const BOOKKEEPER_VOTE = /^V_(\d{10})$/;

/** The recipe a child name belongs to (Curator's mutex and selector look alike: the mutex stands for both), or null. */
export function parseContender(name: string): Contender | null {
  const lock = CURATOR_LOCK.exec(name);
  if (lock) return { name, recipe: "curator-mutex", sequence: Number(lock[2]), protectionId: lock[1] ?? null };
  const goLock = GO_ZOOKEEPER_LOCK.exec(name);
  if (goLock) return { name, recipe: "go-zookeeper-lock", sequence: Number(goLock[2]), protectionId: goLock[1]! };
  const latch = CURATOR_LATCH.exec(name);
  if (latch) return { name, recipe: "curator-leader-latch", sequence: Number(latch[2]), protectionId: latch[1] ?? null };
  const lease = CURATOR_LEASE.exec(name);
  if (lease) return { name, recipe: "curator-semaphore-mutex", sequence: Number(lease[2]), protectionId: lease[1] ?? null };
  const kazoo = KAZOO_LOCK.exec(name);
  if (kazoo) return { name, recipe: "kazoo-lock", sequence: Number(kazoo[2]), protectionId: kazoo[1] || null };
  const solr = SOLR_ELECTION.exec(name);
  if (solr) return { name, recipe: "solr-election", sequence: Number(solr[3]), protectionId: solr[1]!, label: solr[2]! };
  const vote = BOOKKEEPER_VOTE.exec(name);
  if (vote) return { name, recipe: "bookkeeper-auditor", sequence: Number(vote[1]), protectionId: null };
  return null;
}

/** Whether a child of `recipe`'s layout counts for a lock configured as `configured`. */
function isOfRecipe(found: ConcreteRecipe, configured: ZookeeperRecipe): boolean {
  if (configured === "auto") return true;
  // A LeaderSelector is an InterProcessMutex whose data is the participant id.
  if (configured === "curator-leader-selector") return found === "curator-mutex";
  // InterProcessSemaphoreMutex is the other mutex of Curator's: its leases are its queue. go-zookeeper
  // lays its lock out as Curator does, with a shorter protection id.
  if (configured === "curator-mutex") return found === "curator-mutex" || found === "curator-semaphore-mutex" || found === "go-zookeeper-lock";
  return found === configured;
}

export type ContenderQueue = {
  /** The recipe the queue follows (for "auto": the one its contenders follow); null when it has none. */
  recipe: ConcreteRecipe | null;
  /** Holder first, then the waiters in order. */
  contenders: Contender[];
  /** Children that are no contenders of the recipe (other recipes' nodes, sub-nodes). */
  others: string[];
};

/**
 * The contenders of one lock node in queue order. With "auto", a node whose children follow
 * several recipes at once is read as the recipe of its lowest sequence (what the clients would
 * see first); the rest are listed as `others`.
 */
export function orderContenders(children: readonly string[], configured: ZookeeperRecipe): ContenderQueue {
  const parsed: Contender[] = [];
  const others: string[] = [];
  for (const name of children) {
    const contender = parseContender(name);
    if (contender && isOfRecipe(contender.recipe, configured)) parsed.push(contender);
    else others.push(name);
  }
  parsed.sort((a, b) => a.sequence - b.sequence || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const recipe = configured === "auto" || configured === "curator-mutex" ? (parsed[0]?.recipe ?? (configured === "auto" ? null : configured)) : configured;
  const contenders = configured === "auto" ? parsed.filter((c) => c.recipe === recipe) : parsed;
  if (configured === "auto") for (const c of parsed) if (c.recipe !== recipe) others.push(c.name);
  return { recipe: contenders.length === 0 && configured === "auto" ? null : recipe, contenders, others: others.sort() };
}

/** Whether a lock node is a semaphore mutex's (its contenders are under `leases`). */
export function isSemaphoreMutex(children: readonly string[], configured: ZookeeperRecipe): boolean {
  return (configured === "auto" || configured === "curator-mutex") && children.includes(SEMAPHORE_LEASES);
}

/** True when some child of a node follows a known recipe: discovery calls such a node a lock. */
export function hasContenders(children: readonly string[], configured: ZookeeperRecipe): boolean {
  if (isSemaphoreMutex(children, configured)) return true;
  return children.some((name) => {
    const contender = parseContender(name);
    return contender !== null && isOfRecipe(contender.recipe, configured);
  });
}

/**
 * A contender's data as a readable name: printable UTF-8 text, trimmed and capped; null for
 * empty or binary data (the node name then names the contender).
 */
export function readableData(data: Buffer | null): string | null {
  if (data === null || data.length === 0) return null;
  const text = data.toString("utf8").trim();
  // U+FFFD: the bytes were not UTF-8. Control characters: binary.
  if (text.length === 0 || text.includes("\uFFFD") || /[\u0000-\u0008\u000e-\u001f\u007f]/.test(text)) return null;
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

// AuditorVoteFormat printed as protobuf text: `bookieId: "127.0.0.1:3181"`.
const BOOKIE_ID = /(?:^|\s)bookieId:\s*"([^"]+)"/;

/**
 * A contender's name in its recipe's own words: what its data says (a BookKeeper vote's bookie
 * id, else the readable data), else what its node's name says (Solr's node name), else the
 * node's name.
 */
export function nameContender(contender: Contender, data: Buffer | null): string {
  const text = readableData(data);
  if (text !== null && contender.recipe === "bookkeeper-auditor") return BOOKIE_ID.exec(text)?.[1] ?? text;
  return text ?? contender.label ?? contender.name;
}
