import { describe, expect, it } from "vitest";

import { isNotWhitelisted, judgeHolderSessions, listServers, parseSessionDump } from "@/lib/sources/zookeeper/session-dump";

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
