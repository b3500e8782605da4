import net from "node:net";

import type { HoldObservation, HolderLiveness } from "@/lib/poller/contract/hold-observation";

// What only the server knows about other clients' sessions: the `dump` four-letter word. On the
// leader (or a standalone server) it lists each live session's expiry deadline, in the buckets
// of its session tracker, and the ephemeral nodes of each session. A client cannot learn another
// session's timeout otherwise, so without `dump` a dead holder's time left is unknown. The
// server must allow it (zookeeper.4lw.commands.whitelist); other servers answer that it is not
// whitelisted, and followers list no deadlines.

/** Why `dump` matters, naming the server setting: the start-up log line and the Clusters page (for a server that refuses it) say it. */
export const DUMP_WHITELIST_NOTE =
  "session expiries show only where the server allows `dump`: add it to 4lw.commands.whitelist (zoo.cfg) or -Dzookeeper.4lw.commands.whitelist; without it a hold that ends by a crash or a hand-over reads as ended in a way not known";

/** What the Clusters page says of a server that answers `dump`. */
export const DUMP_ALLOWED_NOTE = "the server allows `dump`: holders' session deadlines, and how each hold ended, come from it";

export type SessionDump = {
  /** Expiry deadline (ms since the epoch) of each live session, by id ("0x100007812b70000"). */
  deadlines: Map<string, number>;
  /** Sessions that own ephemeral nodes: alive at the time of the dump. */
  sessionsWithEphemerals: Set<string>;
};

/**
 * Parses `dump`'s text. The deadlines are printed with Java's Date.toString() ("Tue Nov 24
 * 10:44:52 UTC 2026"): whole seconds, so a deadline may be up to a second early, never late.
 */
export function parseSessionDump(text: string): SessionDump {
  const deadlines = new Map<string, number>();
  const sessionsWithEphemerals = new Set<string>();
  let section: "sessions" | "ephemerals" | "other" = "other";
  let bucketDeadline: number | null = null;
  for (const line of text.split("\n")) {
    if (/^Session Sets \(/.test(line)) section = "sessions";
    else if (/^Sessions with Ephemerals \(/.test(line)) section = "ephemerals";
    else if (/^(SessionTracker dump|ephemeral nodes dump|Connections dump)/.test(line)) section = "other";
    else if (section === "sessions") {
      const bucket = /^\d+ expire at (.+):$/.exec(line);
      if (bucket) {
        const at = Date.parse(bucket[1]!);
        bucketDeadline = Number.isNaN(at) ? null : at;
        continue;
      }
      const session = /^\s+(0x[0-9a-f]+)\s*$/.exec(line);
      if (session && bucketDeadline !== null) deadlines.set(session[1]!, bucketDeadline);
    } else if (section === "ephemerals") {
      const session = /^(0x[0-9a-f]+):$/.exec(line);
      if (session) sessionsWithEphemerals.add(session[1]!);
    }
  }
  return { deadlines, sessionsWithEphemerals };
}

/**
 * Whether the sessions behind lock tokens ("<session>/<node>") still live, by a dump read after
 * the read that saw their holds end. Judged only where the dump lists deadlines, Baton's own live
 * session among them (a follower's dump lists none, and "not listed" would then mean nothing); a
 * token without a session is left out.
 */
export function judgeHolderSessions(tokens: string[], dump: SessionDump, ownSessionId: string | null): Map<string, HolderLiveness> {
  const judged = new Map<string, HolderLiveness>();
  if (ownSessionId === null || !dump.deadlines.has(ownSessionId)) return judged;
  for (const token of tokens) {
    const session = /^(0x[0-9a-f]+)\//.exec(token)?.[1];
    if (session === undefined) continue;
    judged.set(token, dump.deadlines.has(session) || dump.sessionsWithEphemerals.has(session) ? "alive" : "gone");
  }
  return judged;
}

/** Per lock, its holder's session and the deadline the dump of the lock's last read listed for it. */
export type ListedDeadlines = Map<string, { session: string; deadline: number }>;

/**
 * The dump as one read's observations use it. The dump is asked for beside the nodes' reads, so a
 * holder's session can end between the two: its node read as there, its session no longer listed.
 * Such a hold keeps the deadline its lock's previous read listed for the session (for this read
 * only: `listed` keeps only what a dump listed), so that its ending, seen by the next read, is
 * judged against it: a session closed before its deadline released its hold. Without it the hold
 * would have no deadline, and every such ending would read as expired.
 */
export function keepDeadlinesOfEndedSessions(dump: SessionDump | null, listed: ListedDeadlines): SessionDump | null {
  if (dump === null) return null;
  let deadlines: Map<string, number> | null = null;
  for (const { session, deadline } of listed.values()) {
    if (dump.deadlines.has(session)) continue;
    deadlines ??= new Map(dump.deadlines);
    deadlines.set(session, deadline);
  }
  return deadlines === null ? dump : { ...dump, deadlines };
}

/** Remembers, for each lock observed, the deadline the dump lists for its holder's session (its details' `holderSessionId`); forgets it where none is listed. */
export function rememberListedDeadlines(listed: ListedDeadlines, observations: readonly HoldObservation[], dump: SessionDump | null): void {
  for (const observation of observations) {
    const session = observation.details.holderSessionId;
    const deadline = typeof session === "string" ? dump?.deadlines.get(session) : undefined;
    if (typeof session === "string" && deadline !== undefined) listed.set(observation.resourceKey, { session, deadline });
    else listed.delete(observation.resourceKey);
  }
}

/** The server refused the command: it is not on its whitelist. */
export function isNotWhitelisted(text: string): boolean {
  return /is not executed because it is not in the whitelist/.test(text);
}

/** Sends a four-letter word to one server and returns all it answers (the server closes the connection). */
export function sendFourLetterWord(host: string, port: number, word: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ host, port });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`${word} got no answer within ${timeoutMs} ms`)));
    socket.on("connect", () => socket.end(word));
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", (hadError) => {
      if (!hadError) resolve(Buffer.concat(chunks).toString("utf8"));
    });
  });
}

/** The servers of a connect string ("zk1:2181,zk2:2181/chroot"). */
export function listServers(connectString: string): { host: string; port: number }[] {
  const hosts = connectString.split("/")[0]!;
  return hosts.split(",").map((entry) => {
    const at = entry.lastIndexOf(":");
    return { host: entry.slice(0, at), port: Number(entry.slice(at + 1)) };
  });
}

/**
 * Asks every server for `dump` and merges what the leader (the one with deadlines) says. Returns
 * null when no server would answer it (not whitelisted), and throws when none could be reached.
 */
export async function readSessionDump(connectString: string, timeoutMs: number): Promise<SessionDump | null> {
  const answers = await Promise.allSettled(listServers(connectString).map(({ host, port }) => sendFourLetterWord(host, port, "dump", timeoutMs)));
  const texts = answers.flatMap((answer) => (answer.status === "fulfilled" ? [answer.value] : []));
  if (texts.length === 0) throw (answers[0] as PromiseRejectedResult).reason;
  const allowed = texts.filter((text) => !isNotWhitelisted(text));
  if (allowed.length === 0) return null;
  const merged: SessionDump = { deadlines: new Map(), sessionsWithEphemerals: new Set() };
  for (const dump of allowed.map(parseSessionDump)) {
    for (const [id, at] of dump.deadlines) merged.deadlines.set(id, at);
    for (const id of dump.sessionsWithEphemerals) merged.sessionsWithEphemerals.add(id);
  }
  return merged;
}
