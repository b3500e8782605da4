import { randomUUID } from "node:crypto";

import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { LockKindDetails } from "@/components/locks/kinds/kind-details";
import { readZookeeperWaiters, summarizeKindDetails } from "@/components/locks/kinds/kind-facts";
import { type ClusterConfig, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { type Bookie, startBookie } from "@/tests/support/bookkeeper-auditors";
import { type HbaseMaster, startHbaseMaster } from "@/tests/support/hbase-masters";
import type { LibraryContender } from "@/tests/support/library-contender";
import { createTestDb, registerCluster, type RunningPoller, startPoller, waitFor } from "@/tests/support/poller-harness";
import { type SolrNode, startSolrNode } from "@/tests/support/solr-overseers";
import { getTestDatabaseUrl } from "@/tests/support/test-database";
import { startZookeeperServer, type TestZookeeperServer } from "@/tests/support/zookeeper-server";

// HBase, Solr and BookKeeper by name, their leader nodes written by the systems' own libraries
// into a real ZooKeeper 3.9.3, never by hand: HBase 2.6.1's ActiveMasterManager and
// MasterAddressTracker (/hbase/master and /hbase/backup-masters), Solr 9.10.1's LeaderElector with
// OverseerElectionContext (/overseer_elect/election), BookKeeper 4.18.2's AuditorElector
// (/ledgers/underreplication/auditorelection). One poller watches all three at their default
// places (`"systems": [{"system": "hbase"}, {"system": "solr"}, {"system": "bookkeeper"}]`). For
// each: Baton names the leader in the system's words and its standbys, on the board's cell and the
// lock page; the leader's JVM is SIGKILLed, its session expires (EXPIRED) and the next one leads.

const SESSION_TIMEOUT_MS = 3_000;
const databaseUrl = getTestDatabaseUrl();
let db: Db;
let server: TestZookeeperServer;
let poller: RunningPoller;
const contenders: LibraryContender[] = [];
const run = randomUUID().slice(0, 8);
const clusterName = `system-libraries-${run}`;
let cluster: ClusterConfig;
let clusterId: number;

const HBASE_MASTER = "/hbase/master";
const SOLR_OVERSEER = "/overseer_elect/election";
const BOOKKEEPER_AUDITOR = "/ledgers/underreplication/auditorelection";

async function lockRow(key: string) {
  const row = await db.heldResource.findUnique({
    where: { clusterId_resourceKey: { clusterId, resourceKey: key } },
    select: { holder: true, consumers: true, details: true, expiresAt: true },
  });
  if (row === null) return null;
  return {
    holder: row.holder,
    waiters: (row.consumers as { name: string }[]).map((w) => w.name),
    source: (row.details as { source: Record<string, unknown> }).source,
    expiresAt: row.expiresAt?.toISOString() ?? null,
  };
}

type LockRow = NonNullable<Awaited<ReturnType<typeof lockRow>>>;

/** Every change of the lock, the first sight of a holder included (a new leader after a loss is one). */
async function changes(key: string) {
  return db.holderChange.findMany({
    where: { clusterId, resource: { resourceKey: key } },
    orderBy: [{ newSeenAt: "asc" }, { id: "asc" }],
    select: { kind: true, ending: true, fromHolder: true, toHolder: true },
  });
}

/** The lock page's panel for a row, as the page renders it. */
function renderLockPage(row: LockRow): string {
  return renderToStaticMarkup(
    createElement(LockKindDetails, {
      kind: "zookeeper",
      details: row.source,
      waiters: row.waiters,
      expiresAt: row.expiresAt,
      lastReadAt: null,
      nowMs: Date.now(),
      isStale: false,
    }),
  );
}

/** Waits for Baton's row, with every contender's log in the error. */
async function waitForRow(key: string, isDone: (row: LockRow) => boolean, what: string): Promise<LockRow> {
  try {
    return (await waitFor(
      () => lockRow(key),
      (row) => row !== null && isDone(row),
      what,
    ))!;
  } catch (error) {
    const row = await lockRow(key);
    throw new Error(`${(error as Error).message}\nlast row: ${JSON.stringify(row)}\n${contenders.map((c) => c.logTail()).join("\n---\n")}`);
  }
}

function track<T extends LibraryContender>(contender: T): T {
  contenders.push(contender);
  return contender;
}

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  server = await startZookeeperServer({ tickTimeMs: 500 });
  cluster = loadConfig({
    BATON_CLUSTERS: JSON.stringify([
      {
        kind: "zookeeper",
        name: clusterName,
        connectString: server.connectString,
        sessionTimeoutMs: 6_000,
        pollIntervalMs: 1_000,
        discoveryIntervalMs: 5_000,
        requestTimeoutMs: 1_000,
        systems: [{ system: "hbase" }, { system: "solr" }, { system: "bookkeeper" }],
      },
    ]),
  }).clusters[0]!;
  clusterId = await registerCluster(db, cluster);
  poller = startPoller({ databaseUrl, cluster, clusterId, pollerId: "system-libraries-test-1" });
}, 180_000);

afterAll(async () => {
  for (const contender of contenders) await contender.dispose();
  await poller?.stop();
  await server?.dispose();
  await db.cluster.deleteMany({ where: { name: clusterName } });
  await db.$disconnect();
});

describe("HBase 2.6.1's active master, as HBase's ActiveMasterManager writes it", () => {
  let masterA: HbaseMaster;
  let masterB: HbaseMaster;

  it("names the active master by host and port from its Master protobuf, the backup master as its standby", async () => {
    const master = { zookeeper: server.connectString, sessionTimeoutMs: SESSION_TIMEOUT_MS, parent: "/hbase", port: 16000, infoPort: 16010 };
    masterA = track(await startHbaseMaster({ ...master, host: "master-a.example.com" }));
    await masterA.next("active");
    masterB = track(await startHbaseMaster({ ...master, host: "master-b.example.com" }));
    const row = await waitForRow(
      HBASE_MASTER,
      (r) => r.holder === "master-a.example.com:16000" && r.waiters.length === 1 && r.source.sessionExpiry === "server dump",
      "Baton to name master-a the active master, master-b its backup",
    );
    expect(row.waiters).toEqual(["master-b.example.com:16000"]);
    expect(row.source).toMatchObject({
      recipe: "ephemeral-node",
      system: "hbase",
      role: "HBase master",
      holderData: { host: "master-a.example.com", port: 16000, startCode: masterA.startCode, infoPort: 16010 },
      standbys: ["master-b.example.com:16000"],
    });
    expect(row.source.holderDataUnread).toBeUndefined();
    expect(summarizeKindDetails("zookeeper", row.source)).toMatch(/^HBase master, session 0x[0-9a-f]+$/);
    const page = renderLockPage(row);
    for (const field of ["host: master-a.example.com", "port: 16000", `startCode: ${masterA.startCode}`, "infoPort: 16010"]) expect(page).toContain(field);
    expect(page).toContain('<ul class="waiters" aria-label="Standbys"><li>master-b.example.com:16000</li></ul>');
  });

  it("the active master SIGKILLed: its session expires (EXPIRED), the backup master becomes active", async () => {
    await masterA.kill();
    await masterB.next("active");
    await waitForRow(HBASE_MASTER, (r) => r.holder === "master-b.example.com:16000" && r.waiters.length === 0, "Baton to name master-b the active master");
    const seen = await changes(HBASE_MASTER);
    expect(seen.find((c) => c.fromHolder === "master-a.example.com:16000")).toMatchObject({ ending: "EXPIRED" });
    expect(seen.at(-1)).toMatchObject({ toHolder: "master-b.example.com:16000" });
  });
});

describe("Solr 9.10.1's overseer, as Solr's LeaderElector queues it", () => {
  let node1: SolrNode;
  let node2: SolrNode;

  it("names the overseer by its node name, the next node in Solr's queue as its waiter", async () => {
    const node = { zkHost: server.connectString, sessionTimeoutMs: SESSION_TIMEOUT_MS };
    node1 = track(await startSolrNode({ ...node, nodeName: "127.0.0.1:8983_solr" }));
    await node1.next("leader");
    node2 = track(await startSolrNode({ ...node, nodeName: "127.0.0.1:8984_solr" }));
    const row = await waitForRow(
      SOLR_OVERSEER,
      (r) => r.holder === "127.0.0.1:8983_solr" && r.waiters.length === 1,
      "Baton to name 8983 the overseer, 8984 next in line",
    );
    expect(row.waiters).toEqual(["127.0.0.1:8984_solr"]);
    expect(row.source).toMatchObject({ recipe: "solr-election", system: "solr", role: "Solr overseer", holderNode: node1.electionNode });
    const [waiter] = readZookeeperWaiters(row.waiters, row.source);
    expect(waiter).toMatchObject({ name: "127.0.0.1:8984_solr", node: node2.electionNode, sequence: Number(node2.electionNode.slice(-10)) });
    expect(summarizeKindDetails("zookeeper", row.source)).toBe(
      `Solr overseer, session ${String(row.source.holderSessionId)}, seq ${Number(node1.electionNode.slice(-10))}`,
    );
    expect(renderLockPage(row)).toContain(`${node1.electionNode} (sequence ${Number(node1.electionNode.slice(-10))})`);
  });

  it("the overseer's node SIGKILLed: its session expires (EXPIRED), the next node leads", async () => {
    await node1.kill();
    await node2.next("leader");
    await waitForRow(SOLR_OVERSEER, (r) => r.holder === "127.0.0.1:8984_solr" && r.waiters.length === 0, "Baton to name 8984 the overseer");
    const seen = await changes(SOLR_OVERSEER);
    expect(seen.find((c) => c.fromHolder === "127.0.0.1:8983_solr")).toMatchObject({ ending: "EXPIRED" });
    expect(seen.at(-1)).toMatchObject({ toHolder: "127.0.0.1:8984_solr" });
  });
});

describe("BookKeeper 4.18.2's auditor, as BookKeeper's AuditorElector votes", () => {
  let bookie1: Bookie;
  let bookie2: Bookie;

  it("names the auditor by the bookie id in its vote, the other bookie's vote as its waiter", async () => {
    const bookie = { zookeeper: server.connectString, sessionTimeoutMs: SESSION_TIMEOUT_MS, ledgersRoot: "/ledgers" };
    bookie1 = track(await startBookie({ ...bookie, bookieId: "bookie-1.example.com:3181" }));
    await bookie1.next("auditor");
    bookie2 = track(await startBookie({ ...bookie, bookieId: "bookie-2.example.com:3181" }));
    const row = await waitForRow(
      BOOKKEEPER_AUDITOR,
      (r) => r.holder === "bookie-1.example.com:3181" && r.waiters.length === 1,
      "Baton to name bookie-1 the auditor, bookie-2 next in line",
    );
    expect(row.waiters).toEqual(["bookie-2.example.com:3181"]);
    expect(row.source).toMatchObject({ recipe: "bookkeeper-auditor", system: "bookkeeper", role: "BookKeeper auditor" });
    expect(String(row.source.holderNode)).toMatch(/^V_\d{10}$/);
    expect(readZookeeperWaiters(row.waiters, row.source)[0]!.node).toMatch(/^V_\d{10}$/);
    expect(summarizeKindDetails("zookeeper", row.source)).toMatch(/^BookKeeper auditor, session 0x[0-9a-f]+, seq \d+$/);
    expect(renderLockPage(row)).toContain("bookie-2.example.com:3181 (sequence ");
  });

  it("the auditor's bookie SIGKILLed: its session expires (EXPIRED), the other bookie is elected", async () => {
    await bookie1.kill();
    await bookie2.next("auditor");
    await waitForRow(BOOKKEEPER_AUDITOR, (r) => r.holder === "bookie-2.example.com:3181" && r.waiters.length === 0, "Baton to name bookie-2 the auditor");
    const seen = await changes(BOOKKEEPER_AUDITOR);
    expect(seen.find((c) => c.fromHolder === "bookie-1.example.com:3181")).toMatchObject({ ending: "EXPIRED" });
    expect(seen.at(-1)).toMatchObject({ toHolder: "bookie-2.example.com:3181" });
  });
});
