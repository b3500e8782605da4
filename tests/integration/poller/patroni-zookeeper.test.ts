import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { DetectedChange } from "@/lib/poller/change";
import type { HoldState } from "@/lib/poller/hold-state";
import { openHoldCycles } from "@/lib/poller/hold-cycles";
import type { SourceCycles } from "@/lib/poller/source-cycles";
import { parseZookeeperClusterConfig } from "@/lib/sources/zookeeper/zookeeper-config";
import { createZookeeperSource } from "@/lib/sources/zookeeper/zookeeper-source";
import { pollUntil } from "@/tests/support/poll-until";
import { openTestSession, type TestSession } from "@/tests/support/zookeeper-nodes";
import { startZookeeperServer, type TestZookeeperServer } from "@/tests/support/zookeeper-server";
import { type PatroniPair, startPatroniPair } from "@/tools/patroni/patroni-pair";
import { describeKindChange } from "@/components/locks/kinds/kind-facts";

// Patroni (PostgreSQL high availability) on a real ZooKeeper 3.9.3, two members from Debian's
// Patroni 3.0.2 with python3-kazoo on PostgreSQL 15 (tools/patroni/), read by the ZooKeeper kind's
// `patroni` system through the shared hold cycles, which run only when the test says so. The
// cluster is one lock (its leader node) held by its primary, its other member a standby; a
// switchover is a release that says so (the failover node written before the leader's session
// closed), a primary whose Patroni was killed an expiry once the server expired its session
// (Kazoo's session timeout is Patroni's ttl: 20 s, the server's maximum at tickTime 1 s).

let server: TestZookeeperServer;
let pair: PatroniPair | undefined;
let cycles: SourceCycles;
const logs: string[] = [];
/** Every lock any read found: the first cycle discovers and reads all of them. */
const seenKeys = new Set<string>();
const scope = `baton-${randomUUID().slice(0, 8)}`;
const lock = `/service/${scope}/leader`;

async function cycle(): Promise<{ changes: DetectedChange[]; states: HoldState[] }> {
  const result = await cycles.run();
  cycles.commit(result);
  if (result.states.shape === "hold") for (const state of result.states.states) seenKeys.add(state.resourceKey);
  return { changes: result.changes, states: result.states.shape === "hold" ? result.states.states : [] };
}

/** Runs cycles until the cluster's lock reads as `isDone` says; the changes they found on the way. */
async function cycleUntil(
  description: string,
  isDone: (state: HoldState) => boolean,
  maxAttempts = 150,
): Promise<{ changes: DetectedChange[]; state: HoldState }> {
  const changes: DetectedChange[] = [];
  let last: HoldState | undefined;
  await pollUntil(
    async () => {
      const result = await cycle();
      changes.push(...result.changes.filter((change) => change.resourceKey === lock));
      last = result.states.find((state) => state.resourceKey === lock) ?? last;
      return last;
    },
    (state) => state !== undefined && isDone(state),
    { description, maxAttempts, intervalMs: 200 },
  );
  return { changes, state: last! };
}

type Standby = { name: string; role: string | null; state: string | null };

function standbysOf(state: HoldState): Standby[] {
  return (state.details.standbyMembers as Standby[] | undefined) ?? [];
}

/** Resolves when `path` is deleted (a watch of the caller's session; a rewrite of the node arms it again). */
function untilDeleted(watcher: TestSession, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const arm = () =>
      watcher.client.exists(path, arm, (error, stat) => {
        if (error) reject(error);
        else if (!stat) resolve();
      });
    arm();
  });
}

beforeAll(async () => {
  // Patroni's ttl is its Kazoo session's timeout, which the server caps at 20 ticks. 20 s, not 10:
  // a SIGTERM'd Patroni stops PostgreSQL before it closes its session, and on a loaded machine
  // (the suite's other servers, another Patroni pair) that once outlasted a 10 s session, which
  // then expired: a true expiry, where this test wants the release.
  server = await startZookeeperServer({ tickTimeMs: 1_000 });
  pair = await startPatroniPair({ zookeeperHosts: [server.connectString], scope, namespace: "/service/", ttl: 20, loopWait: 2, retryTimeout: 3 });
  const config = {
    ...parseZookeeperClusterConfig({
      kind: "zookeeper",
      name: "patroni",
      connectString: server.connectString,
      // Every scope under the namespace: the members, failover, history... nodes are no locks.
      systems: [{ system: "patroni", namespace: "/service" }],
      requestTimeoutMs: 2_000,
    }),
    pollIntervalMs: 1_000,
  };
  // Full reads every second besides the watches: a member's state is rewritten in place, unwatched.
  cycles = await openHoldCycles(
    createZookeeperSource(config, (line) => logs.push(line)),
    [],
    { resourceKind: "ZOOKEEPER_LOCK", discoveryIntervalMs: 60_000, pollIntervalMs: 1_000 },
  );
}, 300_000);

afterAll(async () => {
  await cycles?.close();
  await pair?.stop();
  await server?.dispose();
}, 60_000);

describe("Patroni on ZooKeeper", () => {
  it("one lock per cluster, held by the primary, with the other member as its standby and waiter", async () => {
    const { state } = await cycleUntil("pg1 listed as a running standby", (read) =>
      standbysOf(read).some((s) => s.name === "pg1" && s.state !== null && /running|streaming/.test(s.state)),
    );
    expect([...seenKeys]).toEqual([lock]);
    expect(state).toMatchObject({ pattern: "/service/*/leader", holder: "pg0", waiters: ["pg1"] });
    expect(state.holderToken).toMatch(/^0x[0-9a-f]+\/0x[0-9a-f]+$/);
    expect(state.details).toMatchObject({
      recipe: "ephemeral-node",
      system: "patroni",
      role: `Patroni cluster ${scope}`,
      scope,
      standbys: ["pg1"],
      primary: { role: expect.stringMatching(/master|primary/) },
      sessionExpiry: "server dump",
    });
    expect(standbysOf(state)).toEqual([expect.objectContaining({ name: "pg1", role: "replica" })]);
    expect(state.details.lagBytes).toHaveProperty("pg1");
    expect(state.details.timeline).toBe(1);
  });

  it("patronictl switchover: released, the details say a switchover to pg1 was asked for, pg1 holds", async () => {
    // Run beside the cycles, as Baton's watches run beside a real switchover.
    const switching = pair!.runPatronictl("switchover", scope, "--leader", "pg0", "--candidate", "pg1", "--force");
    const { changes, state } = await cycleUntil(
      "pg1 to hold with pg0 as a running standby",
      (read) => read.holder === "pg1" && standbysOf(read).some((s) => s.name === "pg0" && s.role === "replica"),
      400,
    );
    await switching;
    const ending = changes.find((change) => change.fromHolder === "pg0");
    // The request read while pending ("switchover to pg1 requested"), or, read only after pg1 took
    // over, cleared by pg1 as it did ("... (cleared as pg1 took over)"): a switchover either way.
    expect(ending).toMatchObject({
      ending: "RELEASED",
      details: {
        sourceAfter: {
          previousPrimary: { name: "pg0", kind: "switchover", ending: "RELEASED", reason: expect.stringMatching(/^switchover to pg1 requested/) },
        },
      },
    });
    // The change list's words for it, from the stored change.
    expect(describeKindChange("zookeeper", ending!)?.words).toMatch(/^released: switchover to pg1/);
    expect(changes.at(-1)).toMatchObject({ toHolder: "pg1" });
    expect(state.waiters).toEqual(["pg0"]);
    expect(state.details.previousPrimary).toMatchObject({ name: "pg0", kind: "switchover", ending: "RELEASED" });
  });

  it("kill -9 of the primary's Patroni: expired once the server expired its session, then pg0 holds", async () => {
    const pg1 = pair!.members.find((member) => member.name === "pg1")!;
    pg1.signal("SIGKILL");
    const { changes, state } = await cycleUntil("pg0 to hold again", (read) => read.holder === "pg0", 400);
    const ending = changes.find((change) => change.fromHolder === "pg1");
    expect(ending).toMatchObject({
      ending: "EXPIRED",
      details: { sourceAfter: { previousPrimary: { name: "pg1", kind: "failover", ending: "EXPIRED", reason: "failover: pg1's ZooKeeper session expired" } } },
    });
    expect(describeKindChange("zookeeper", ending!)?.words).toMatch(/^expired: failover \(pg1's session ran out\)/);
    expect(changes.at(-1)).toMatchObject({ toHolder: "pg0" });
    // The dead member's node went with its session: no standby left.
    expect(state.waiters).toEqual([]);
  });

  it("SIGTERM of the primary's Patroni: released where it let go before its session's deadline, expired where the server expired the session (its log says which)", async () => {
    const { state } = await cycleUntil("pg0 to hold", (read) => read.holder === "pg0");
    const session = state.details.holderSessionId as string;
    // The truth, apart from Baton: the server logs "Expiring session 0x..." of a session it
    // expires, before it deletes the session's nodes. Patroni deletes its leader node (or closes
    // its session) once PostgreSQL has stopped; on a loaded machine that can outlast its leader
    // lease, and Patroni then leaves the node to the session's expiry: a true expiry.
    const watcher = await openTestSession(server.connectString);
    try {
      const deleted = untilDeleted(watcher, lock);
      const pg0 = pair!.members.find((member) => member.name === "pg0")!;
      pg0.signal("SIGTERM");
      await deleted;
      const isExpiredByServer = server.log().includes(`Expiring session ${session},`);
      const { changes } = await cycleUntil("the cluster to be free", (read) => read.holder === null, 400);
      const ending = isExpiredByServer ? { ending: "EXPIRED", kind: "failover" } : { ending: "RELEASED", kind: "released" };
      expect(changes).toMatchObject([
        { kind: "HOLDER_LOST", fromHolder: "pg0", ending: ending.ending, details: { sourceAfter: { previousPrimary: { name: "pg0", ...ending } } } },
      ]);
    } finally {
      await watcher.close();
    }
  });
});
