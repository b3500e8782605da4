import { type ChildProcess, spawn } from "node:child_process";
import { createHmac, randomUUID } from "node:crypto";
import type http from "node:http";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { Db } from "@/lib/db/client";
import { createFleet, type Fleet } from "@/tools/fleet/fleet";
import { createNonPartitionedTopic } from "@/tools/pulsar/admin-setup";
import { startHttpServer, type TestServer } from "@/tests/support/http-server";
import { createTestDb, waitFor } from "@/tests/support/poller-harness";
import { createTestNamespace, getTestBroker } from "@/tests/support/pulsar";
import { getTestDatabaseUrl } from "@/tests/support/test-database";
import { workerNodeArgs } from "@/tests/support/worker-process";
import { startAlertmanager, type TestAlertmanager } from "@/tests/support/alerts-alertmanager";
import { isClockMoved } from "@/tools/without-fake-clock";

// Alerting end to end: the real worker process polls a real broker, evaluates the rules and
// delivers to a webhook receiver in this test, to a Slack-format webhook, and to a real
// Alertmanager (which notifies the test in turn). Every consumer of a subscription is killed (the
// no-holder alert fires), the worker is killed (SIGKILL) and another started, one consumer comes
// back (it resolves): exactly one firing and one resolved notification, each correctly signed.

const broker = getTestBroker();
const databaseUrl = getTestDatabaseUrl();
const run = randomUUID().slice(0, 8);
const clusterName = `alerts-${run}`;
const SECRET = `secret-${run}`;
let db: Db;
let fleet: Fleet;
let scratch: Awaited<ReturnType<typeof createTestNamespace>>;
let topic: string;
let receiver: TestServer;
let worker: ChildProcess | undefined;
let alertmanager: TestAlertmanager;

/** What Alertmanager's own webhook and the Slack-format webhook deliver to this test. */
type AlertmanagerNotice = { status: string; alerts: { status: string; labels: Record<string, string>; generatorURL: string }[] };
const fromAlertmanager: AlertmanagerNotice[] = [];
const slack: { text: string }[] = [];

type Received = {
  isSigned: boolean;
  delivery: string | undefined;
  body: {
    id: string;
    status: string;
    alert: { rule: string; fingerprint: string; labels: Record<string, string>; link: string; firedAt: string | null; resolvedAt: string | null };
  };
};
const received: Received[] = [];

function receive(request: http.IncomingMessage, response: http.ServerResponse): void {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    if (request.url === "/alertmanager" || request.url === "/slack") {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      if (request.url === "/alertmanager") fromAlertmanager.push(body);
      else slack.push(body);
      response.writeHead(200).end();
      return;
    }
    const raw = Buffer.concat(chunks).toString("utf8");
    const expected = `sha256=${createHmac("sha256", SECRET).update(raw).digest("hex")}`;
    received.push({
      isSigned: request.headers["x-baton-signature"] === expected,
      delivery: request.headers["x-baton-delivery"] as string | undefined,
      body: JSON.parse(raw),
    });
    response.writeHead(204).end();
  });
}

async function startWorker(): Promise<ChildProcess> {
  return spawn(process.execPath, await workerNodeArgs(), {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      BATON_CLUSTERS: JSON.stringify([
        { name: clusterName, adminUrl: broker.adminUrl, scope: { namespaces: [scratch.namespace] }, pollIntervalMs: 500, discoveryIntervalMs: 1000 },
      ]),
      // Other tests' counter events share this database: only this test's rule is judged.
      BATON_ALERT_RULES: JSON.stringify({ "no-holder": { forSeconds: 1 }, violations: { enabled: false } }),
      BATON_ALERT_WEBHOOKS: JSON.stringify([
        { name: "test", url: `${receiver.url}/hook`, secret: SECRET, timeoutMs: 2000 },
        { name: "chat", url: `${receiver.url}/slack`, format: "slack" },
      ]),
      BATON_ALERTMANAGER_URL: alertmanager.url,
      BATON_ALERT_EVALUATION_INTERVAL_MS: "500",
      BATON_ALERT_LINK_BASE_URL: "http://baton.test",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

const noHolder = () => received.filter((r) => r.body.alert.rule === "no-holder" && r.body.alert.labels.cluster === clusterName);
const evaluatorEpoch = async () => (await db.alertEvaluatorLease.findUnique({ where: { id: 1 }, select: { epoch: true } }))?.epoch ?? 0n;

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  receiver = await startHttpServer(receive);
  alertmanager = await startAlertmanager({ webhookUrl: `${receiver.url}/alertmanager` });
  scratch = await createTestNamespace("alerts");
  topic = scratch.topic("orders");
  await createNonPartitionedTopic(broker.adminUrl, topic);
  fleet = createFleet({ wsUrl: broker.wsUrl });
  await fleet.startGroup({ names: ["w1", "w2"], topic, subscription: "billing", subscriptionType: "Failover" });
});

afterAll(async () => {
  worker?.kill("SIGKILL");
  await fleet?.shutdown("kill");
  await scratch?.cleanup();
  await alertmanager?.dispose();
  await receiver?.close();
  await db?.$disconnect();
});

describe("alerting in the worker", () => {
  it("notifies one firing and one resolved no-holder alert per incident, across a worker crash", async () => {
    worker = await startWorker();
    // The worker polls and evaluates: the subscription is held, nothing fires.
    await waitFor(
      () => db.heldResource.findMany({ where: { cluster: { name: clusterName }, subscription: "billing" }, select: { holder: true } }),
      (rows) => rows.length === 1 && rows[0]!.holder !== null,
      "the poller to store the holder",
    );
    const firstEpoch = await waitFor(evaluatorEpoch, (epoch) => epoch > 0n, "the worker to take the evaluator lease");

    await fleet.consumer("w1").kill();
    await fleet.consumer("w2").kill();
    const [firing] = await waitFor(
      async () => noHolder(),
      (list) => list.length >= 1,
      "the firing notification",
      300,
    );
    expect(firing!.body).toMatchObject({
      status: "firing",
      alert: {
        labels: { alertname: "no-holder", cluster: clusterName, kind: "pulsar-subscription", resource: topic, subscription: "billing", severity: "critical" },
      },
    });
    expect(firing!.body.alert.link).toMatch(/^http:\/\/baton\.test\/subscriptions\?/);
    expect(firing!.delivery).toBe(firing!.body.id);
    // Alertmanager holds it as active, with Baton's labels and link, and notifies its receiver.
    const mine = <T extends { labels: Record<string, string> }>(alerts: T[]): T[] =>
      alerts.filter((a) => a.labels.alertname === "no-holder" && a.labels.cluster === clusterName);
    const [active] = await waitFor(
      async () => mine(await alertmanager.listAlerts()),
      (list) => list.length === 1,
      "Alertmanager to hold the firing alert",
    );
    expect(active).toMatchObject({
      labels: { subscription: "billing", severity: "critical" },
      status: { state: "active" },
      generatorURL: firing!.body.alert.link,
    });
    expect(Date.parse(active!.endsAt)).toBeGreaterThan(Date.parse(active!.startsAt));
    await waitFor(
      async () => fromAlertmanager.filter((n) => mine(n.alerts).length > 0),
      (list) => list.some((n) => n.status === "firing"),
      "Alertmanager to notify the firing alert",
    );

    // A crash between firing and resolution (the firing recorded as delivered: a crash inside a
    // delivery may repeat it, with the same id): a new worker takes over from the stored state.
    await waitFor(
      () => db.alertNotification.findFirst({ where: { id: BigInt(firing!.body.id) }, select: { deliveredAt: true } }),
      (n) => n?.deliveredAt != null,
      "the firing delivery to be recorded",
    );
    worker.kill("SIGKILL");
    worker = await startWorker();
    await waitFor(evaluatorEpoch, (epoch) => epoch > firstEpoch, "the new worker to take the evaluator lease", 300);

    await fleet.startConsumer({ name: "w3", topic, subscription: "billing", subscriptionType: "Failover" });
    await waitFor(
      async () => noHolder(),
      (list) => list.some((r) => r.body.status === "resolved"),
      "the resolved notification",
      300,
    );

    if (isClockMoved()) {
      // Baton's clock is moved and Alertmanager's is not (a Go server libfaketime cannot reach):
      // Alertmanager keeps an alert whose endsAt lies in its future firing until then, as it would
      // with any clock skew. What is Baton's to do is delivering the resolution: it did.
      await waitFor(
        () =>
          db.alertNotification.findFirst({
            where: { receiver: "alertmanager", kind: "resolved", alert: { fingerprint: firing!.body.alert.fingerprint } },
            select: { deliveredAt: true },
          }),
        (n) => n?.deliveredAt != null,
        "the resolution delivered to Alertmanager",
      );
    } else {
      // Alertmanager got the resolution (its endsAt is minutes ahead while firing: this is not an expiry).
      await waitFor(
        async () => fromAlertmanager.filter((n) => mine(n.alerts).length > 0),
        (list) => list.some((n) => n.status === "resolved"),
        "Alertmanager to notify the resolution",
      );
      expect(mine(await alertmanager.listAlerts())).toEqual([]);
    }

    // Some more evaluations change nothing.
    const runs = await db.pollRun.count({ where: { cluster: { name: clusterName } } });
    await waitFor(
      () => db.pollRun.count({ where: { cluster: { name: clusterName } } }),
      (n) => n >= runs + 4,
      "four more poll cycles",
    );
    const notifications = noHolder();
    expect(notifications.map((r) => r.body.status)).toEqual(["firing", "resolved"]);
    expect(notifications.every((r) => r.isSigned)).toBe(true);
    expect(new Set(notifications.map((r) => r.body.alert.fingerprint)).size).toBe(1);
    expect(notifications[1]!.body.alert.resolvedAt).not.toBeNull();
    const chat = slack.filter((m) => m.text.includes(`(${clusterName})`));
    expect(chat.map((m) => m.text.split(" ")[1])).toEqual(["*FIRING*", "*RESOLVED*"]);
    expect(chat[0]!.text).toContain(`<${firing!.body.alert.link}|Open in Baton>`);

    // The stored incident: its history and each delivery.
    const alert = await db.alert.findFirstOrThrow({
      where: { fingerprint: firing!.body.alert.fingerprint },
      orderBy: { id: "desc" },
      select: {
        state: true,
        transitions: { orderBy: { id: "asc" }, select: { fromState: true, toState: true } },
        notifications: { select: { kind: true, deliveredAt: true, deliveries: { select: { statusCode: true } } } },
      },
    });
    expect(alert.state).toBe("resolved");
    expect(alert.transitions.map((t) => `${t.fromState}->${t.toState}`)).toEqual(["null->pending", "pending->firing", "firing->resolved"]);
    const delivered = alert.notifications.filter((n) => n.deliveredAt !== null && n.deliveries.length === 1 && n.deliveries[0]!.statusCode! < 300);
    expect(delivered).toHaveLength(alert.notifications.length);
    // Firing and resolved to each of the three receivers (re-sends to Alertmanager come only after a minute).
    expect(alert.notifications.map((n) => n.kind).sort()).toEqual(["firing", "firing", "firing", "resolved", "resolved", "resolved"]);
  });
});
