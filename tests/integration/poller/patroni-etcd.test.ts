import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { DetectedChange } from "@/lib/poller/change";
import type { HoldState } from "@/lib/poller/hold-state";
import { openHoldCycles } from "@/lib/poller/hold-cycles";
import type { SourceCycles } from "@/lib/poller/source-cycles";
import type { HoldHint } from "@/lib/poller/contract/hold-observation";
import { createEtcdHoldSource, parseEtcdClusterConfig } from "@/lib/sources/etcd";
import { startEtcdServer, stopEtcdServers, type TestEtcdServer } from "@/tests/support/etcd-servers";
import { pollUntil } from "@/tests/support/poll-until";
import { type PatroniPair, startPatroniPair } from "@/tools/patroni/patroni-pair";
import { describeKindChange, summarizeKindDetails } from "@/components/locks/kinds/kind-facts";

// Patroni (PostgreSQL high availability) on a real etcd 3.4, two members from Debian's Patroni
// 3.0.2 on PostgreSQL 15 (tools/patroni/), read by the etcd kind's `patroni` layout through the
// shared hold cycles, which run only when the test says so. The cluster is one lock held by its
// primary, its other member a standby; a switchover is a release that says so, a primary whose
// Patroni was killed an expiry once its lease ran out (ttl 12 s, loop_wait 2 s).

let server: TestEtcdServer;
let pair: PatroniPair | undefined;
let cycles: SourceCycles;
const hints: HoldHint[] = [];
const logs: string[] = [];
/** Every lock any read found: the first cycle discovers and reads all of them. */
const seenKeys = new Set<string>();
const scope = `baton-${randomUUID().slice(0, 8)}`;
const lock = `/service/${scope}`;

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

function standbysOf(state: HoldState): { name: string; role: string | null; state: string | null }[] {
  return (state.details.standbys as { name: string; role: string | null; state: string | null }[] | undefined) ?? [];
}

beforeAll(async () => {
  server = await startEtcdServer();
  pair = await startPatroniPair({ etcdHost: `127.0.0.1:${server.clientPort}`, scope, namespace: "/service/", ttl: 12, loopWait: 2 });
  const config = {
    ...parseEtcdClusterConfig({
      kind: "etcd",
      name: "patroni",
      endpoints: [server.url],
      // "/" as well, read key by key: Patroni's member keys must not turn up there as locks.
      prefixes: [
        { prefix: "/service/", layout: "patroni", mustBeHeld: true },
        { prefix: "/", layout: "auto" },
      ],
    }),
    pollIntervalMs: 60_000,
  };
  const source = createEtcdHoldSource(config, (line) => logs.push(line));
  // The source as the worker uses it, its signals also recorded here: the test knows when they arrived.
  const recorded = {
    ...source,
    watch: (onHints: (batch: HoldHint[]) => void, onResync: (reason: string) => void) =>
      source.watch((batch) => {
        hints.push(...batch);
        onHints(batch);
      }, onResync),
  };
  cycles = await openHoldCycles(recorded, [], { resourceKind: "ETCD_LOCK", discoveryIntervalMs: 60_000, pollIntervalMs: 60_000 });
}, 300_000);

afterAll(async () => {
  await cycles?.close();
  await pair?.stop();
  await stopEtcdServers(server ? [server] : []);
}, 60_000);

describe("Patroni on etcd v3", () => {
  it("one lock per cluster, held by the primary, with the other member as its standby and waiter", async () => {
    const { state } = await cycleUntil("pg1 listed as a running standby", (read) =>
      standbysOf(read).some((s) => s.name === "pg1" && s.state !== null && /running|streaming/.test(s.state)),
    );
    // Member keys, config, status...: none is a lock, under either prefix.
    expect([...seenKeys]).toEqual([lock]);
    expect(state).toMatchObject({ pattern: "/service/", holder: "pg0", waiters: ["pg1"] });
    expect(state.holderToken).toMatch(/^[0-9a-f]+@\d+$/);
    expect(state.details).toMatchObject({ layout: "patroni", scope, key: `${lock}/leader`, primary: { role: expect.stringMatching(/master|primary/) } });
    expect(standbysOf(state)).toEqual([expect.objectContaining({ name: "pg1", role: "replica" })]);
    expect(state.details.lagBytes).toHaveProperty("pg1");
  });

  it("patronictl switchover: released, the details say a switchover to pg1 was asked for, pg1 holds", async () => {
    const from = hints.length;
    pair!.patronictl("switchover", scope, "--leader", "pg0", "--candidate", "pg1", "--force");
    const { changes, state } = await cycleUntil(
      "pg1 to hold with pg0 as a running standby",
      (read) => read.holder === "pg1" && standbysOf(read).some((s) => s.name === "pg0" && s.role === "replica"),
    );
    expect(hints.slice(from).filter((hint) => hint.key === lock && hint.kind !== "change")).toMatchObject([{ kind: "release", event: "DELETE leader" }]);
    const ending = changes.find((change) => change.fromHolder === "pg0");
    expect(ending).toMatchObject({
      ending: "RELEASED",
      details: { sourceAfter: { previousPrimary: { name: "pg0", kind: "switchover", reason: "switchover to pg1 requested" } } },
    });
    // The change list's words for it, from the stored change.
    expect(describeKindChange("etcd", ending!)?.words).toMatch(/^released: switchover to pg1/);
    expect(changes.at(-1)).toMatchObject({ toHolder: "pg1" });
    expect(state.waiters).toEqual(["pg0"]);
    expect(summarizeKindDetails("etcd", state.details)).toMatch(new RegExp(`^Patroni cluster ${scope}, 1 standby`));
    expect(state.details.previousPrimary).toMatchObject({ name: "pg0", kind: "switchover", ending: "RELEASED" });
  });

  it("kill -9 of the primary's Patroni: expired once its lease ran out, then pg0 holds", async () => {
    const pg1 = pair!.members.find((member) => member.name === "pg1")!;
    const from = hints.length;
    pg1.signal("SIGKILL");
    const { changes } = await cycleUntil("pg0 to hold again", (read) => read.holder === "pg0", 400);
    expect(hints.slice(from).filter((hint) => hint.key === lock && hint.kind !== "change")).toMatchObject([{ kind: "expiry", event: "DELETE leader" }]);
    const ending = changes.find((change) => change.fromHolder === "pg1");
    expect(ending).toMatchObject({
      ending: "EXPIRED",
      details: { sourceAfter: { previousPrimary: { name: "pg1", kind: "failover", reason: "failover: pg1's lease expired" } } },
    });
    expect(describeKindChange("etcd", ending!)?.words).toMatch(/^expired: failover \(pg1's lease ran out\)/);
    expect(changes.at(-1)).toMatchObject({ toHolder: "pg0" });
  });

  it("SIGTERM of the primary's Patroni: it deletes its leader key while its lease lives, released", async () => {
    const pg0 = pair!.members.find((member) => member.name === "pg0")!;
    const from = hints.length;
    pg0.signal("SIGTERM");
    const { changes } = await cycleUntil("the cluster to be free", (read) => read.holder === null);
    expect(hints.slice(from).filter((hint) => hint.key === lock && hint.kind !== "change")).toMatchObject([{ kind: "release", event: "DELETE leader" }]);
    expect(changes).toMatchObject([
      { kind: "HOLDER_LOST", fromHolder: "pg0", ending: "RELEASED", details: { sourceAfter: { previousPrimary: { name: "pg0", kind: "released" } } } },
    ]);
  });
});
