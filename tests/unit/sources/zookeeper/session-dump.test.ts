import { describe, expect, it } from "vitest";

import { detectHoldChanges } from "@/lib/poller/detect-hold-changes";
import { type LeaderNodeReading, toLeaderNodeObservation } from "@/lib/sources/zookeeper/leader-observation";
import {
  isNotWhitelisted,
  judgeHolderSessions,
  keepDeadlinesOfEndedSessions,
  type ListedDeadlines,
  listServers,
  parseSessionDump,
  rememberListedDeadlines,
} from "@/lib/sources/zookeeper/session-dump";

// Text as ZooKeeper 3.9.3 answers `dump` (standalone), recorded on this machine.
const DUMP = `SessionTracker dump:
Session Sets (2)/(3):
1 expire at Tue Nov 24 10:44:52 UTC 2026:
	0x1000079a08f0000
2 expire at Tue Nov 24 10:44:54 UTC 2026:
	0x1000079a08f0001
	0x1000079a08f0002
ephemeral nodes dump:
Sessions with Ephemerals (1):
0x1000079a08f0000:
	/l/a/x-0000000000
Connections dump:
Connections Sets (1)/(1):
1 expire at Tue Nov 24 10:45:02 UTC 2026:
	ip: /127.0.0.1:44896 sessionId: 0x0`;

describe("parseSessionDump", () => {
  it("reads each session's deadline and the sessions that own ephemeral nodes, not the connections", () => {
    const dump = parseSessionDump(DUMP);
    expect(Object.fromEntries([...dump.deadlines].map(([id, ms]) => [id, new Date(ms).toISOString()]))).toEqual({
      "0x1000079a08f0000": "2026-11-24T10:44:52.000Z",
      "0x1000079a08f0001": "2026-11-24T10:44:54.000Z",
      "0x1000079a08f0002": "2026-11-24T10:44:54.000Z",
    });
    expect([...dump.sessionsWithEphemerals]).toEqual(["0x1000079a08f0000"]);
  });

  it("tells a refused command, and reads the servers of a connect string", () => {
    expect(isNotWhitelisted("dump is not executed because it is not in the whitelist.")).toBe(true);
    expect(parseSessionDump("").deadlines.size).toBe(0);
    expect(listServers("zk1:2181,10.0.0.2:2182/apps")).toEqual([
      { host: "zk1", port: 2181 },
      { host: "10.0.0.2", port: 2182 },
    ]);
  });
});

describe("judgeHolderSessions", () => {
  const dump = parseSessionDump(DUMP);
  it("a token's session listed with a deadline or with ephemerals is alive; one not listed is gone; a token without a session is not judged", () => {
    const judged = judgeHolderSessions(
      ["0x1000079a08f0001/lock-0000000001", "0x1000079a08f0009/lock-0000000002", "lock-0000000003"],
      dump,
      "0x1000079a08f0000",
    );
    expect([...judged]).toEqual([
      ["0x1000079a08f0001/lock-0000000001", "alive"],
      ["0x1000079a08f0009/lock-0000000002", "gone"],
    ]);
  });

  it("judges nothing from a dump without Baton's own session (a follower's lists no deadlines)", () => {
    expect(judgeHolderSessions(["0x1000079a08f0009/lock-0000000002"], parseSessionDump(""), "0x1000079a08f0000").size).toBe(0);
    expect(judgeHolderSessions(["0x1000079a08f0009/lock-0000000002"], dump, null).size).toBe(0);
  });
});

describe("keepDeadlinesOfEndedSessions", () => {
  const session = "0x1000079a08f0000";
  const baton = "0x1000079a08f0001";
  const T = Date.parse("2026-12-07T10:00:00.000Z");
  const deadline = T + 10_000;
  const dumpOf = (deadlines: [string, number][]) => ({ deadlines: new Map(deadlines), sessionsWithEphemerals: new Set<string>() });
  const read = (exists: boolean, atMs: number): LeaderNodeReading => ({
    path: "/service/batman/leader",
    pattern: "/service/*/leader",
    node: exists ? { data: Buffer.from("pg0"), stat: { ephemeralOwner: session, ctimeMs: T - 60_000, czxid: "0x1a", numChildren: 0 } } : null,
    standbys: null,
    electionCount: null,
    observedAt: new Date(atMs).toISOString(),
  });

  it("a session that ended between its node's read and the dump keeps its last listed deadline for that read: its close before the deadline is a release", () => {
    const listed: ListedDeadlines = new Map();
    const observeWith = (exists: boolean, atMs: number, dump: ReturnType<typeof dumpOf>) => {
      const facts = { dump: keepDeadlinesOfEndedSessions(dump, listed), batonSessionTimeoutMs: 30_000 };
      const { observation } = toLeaderNodeObservation(read(exists, atMs), facts, null);
      rememberListedDeadlines(listed, [observation], dump);
      return observation;
    };
    // Held, the session listed; then the node read as there while the dump no longer lists its
    // session (Patroni closed it between the two); then gone, a second before the deadline.
    let state = detectHoldChanges(
      undefined,
      observeWith(
        true,
        T,
        dumpOf([
          [session, deadline],
          [baton, T + 30_000],
        ]),
      ),
    ).next;
    const raced = observeWith(true, T + 1_000, dumpOf([[baton, T + 31_000]]));
    expect(raced.expiresAt).toBe(new Date(deadline).toISOString());
    state = detectHoldChanges(state, raced).next;
    const gone = { ...observeWith(false, T + 1_200, dumpOf([[baton, T + 31_200]])), previousHolder: "gone" as const };
    expect(detectHoldChanges(state, gone).changes).toMatchObject([{ kind: "HOLDER_LOST", ending: "RELEASED" }]);

    // The carried deadline lasts one read: a node still there whose session the next dump does not list either has none.
    const again = new Map(listed);
    rememberListedDeadlines(again, [raced], dumpOf([[baton, T + 31_000]]));
    expect(keepDeadlinesOfEndedSessions(dumpOf([[baton, T + 32_000]]), again)?.deadlines.has(session)).toBe(false);
  });

  it("a session the dump still lists keeps the dump's own deadline; no dump, no deadlines", () => {
    const listed: ListedDeadlines = new Map([["/service/batman/leader", { session, deadline }]]);
    expect(keepDeadlinesOfEndedSessions(dumpOf([[session, deadline + 3_000]]), listed)?.deadlines.get(session)).toBe(deadline + 3_000);
    expect(keepDeadlinesOfEndedSessions(null, listed)).toBeNull();
  });
});
