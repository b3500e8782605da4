import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { HoldHint } from "@/lib/poller/contract/hold-observation";
import { createEtcdHoldSource } from "@/lib/sources/etcd";
import { parseEtcdClusterConfig } from "@/lib/sources/etcd/etcd-config";
import { etcdKind } from "@/lib/sources/etcd/etcd-kind";
import { ETCDCTL_BINARY } from "@/tests/support/ensure-etcd";
import { type Contender, startElectCandidate } from "@/tests/support/etcd-contenders";
import { startEtcdServer, stopEtcdServers, type TestEtcdServer } from "@/tests/support/etcd-servers";
import { findFreePort } from "@/tools/free-port";
import { withoutFakeClock } from "@/tools/without-fake-clock";
import { waitFor } from "@/tests/support/poller-harness";

// The etcd source on its own against real etcd 3.4 servers: members that do not answer (failover,
// health), etcd's authentication (a read-only user, a password file, a wrong password), and the
// watch's hints with their events.

let open: TestEtcdServer;
let secured: TestEtcdServer;
let tlsServer: TestEtcdServer;
let deadUrl: string;
const contenders: Contender[] = [];
const run = randomUUID().slice(0, 8);
const prefix = `baton-src/${run}/`;
const secretDir = mkdtempSync(path.join(os.tmpdir(), "baton-etcd-secret-"));

function etcdctl(server: TestEtcdServer, args: string[], user?: string): string {
  return execFileSync(ETCDCTL_BINARY, [`--endpoints=127.0.0.1:${server.clientPort}`, ...(user ? [`--user=${user}`] : []), ...args], {
    env: { ...process.env, ETCDCTL_API: "3" },
    encoding: "utf8",
  });
}

/**
 * A bound on each request that only a hung etcd reaches: etcd checks a password with bcrypt, which
 * took over 1 s on a loaded machine (the watch then opened late, the wrong password read as a timeout).
 */
const REQUEST_BOUND_MS = 15_000;

function config(input: Record<string, unknown>) {
  return {
    ...parseEtcdClusterConfig({ kind: "etcd", name: "src", prefixes: [{ prefix, layout: "go-election" }], requestTimeoutMs: REQUEST_BOUND_MS, ...input }),
    pollIntervalMs: 500,
  };
}

beforeAll(async () => {
  // A self-signed certificate for 127.0.0.1: the server's, and the CA Baton is told to trust. It
  // is made on the real clock and valid for two years: etcd (Go) checks it on the real clock,
  // Baton on the moved one under `npm run test:clock` (up to 400 days ahead).
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "730",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      path.join(secretDir, "key.pem"),
      "-out",
      path.join(secretDir, "cert.pem"),
    ],
    { stdio: "ignore", env: withoutFakeClock(process.env) },
  );
  const tls = { certFile: path.join(secretDir, "cert.pem"), keyFile: path.join(secretDir, "key.pem"), caFile: path.join(secretDir, "cert.pem") };
  [open, secured, tlsServer] = await Promise.all([startEtcdServer(), startEtcdServer(), startEtcdServer({ tls })]);
  deadUrl = `http://127.0.0.1:${await findFreePort()}`;
  // A root user (auth needs one) and a user that may only read the watched prefix.
  etcdctl(secured, ["user", "add", "root:root-pw"]);
  etcdctl(secured, ["user", "add", "baton:baton-pw"]);
  etcdctl(secured, ["role", "add", "lock-reader"]);
  etcdctl(secured, ["role", "grant-permission", "lock-reader", "--prefix=true", "read", prefix]);
  etcdctl(secured, ["user", "grant-role", "baton", "lock-reader"]);
  etcdctl(secured, ["auth", "enable"]);
  writeFileSync(path.join(secretDir, "password"), "baton-pw\n");
}, 60_000);

afterAll(async () => {
  await Promise.all(contenders.map((c) => c.kill()));
  await stopEtcdServers([open, secured, tlsServer].filter(Boolean));
  rmSync(secretDir, { recursive: true, force: true });
});

describe("the etcd source", () => {
  it("reads through the next member when the first does not answer, and health says degraded, then down", async () => {
    contenders.push(startElectCandidate(open.url, `${prefix}failover`, "pod-f"));
    const cluster = config({ endpoints: [deadUrl, open.url] });
    const source = createEtcdHoldSource(cluster);
    try {
      const found = await waitFor(
        () => source.discover(),
        (d) => d.keys.length === 1,
        "the election to be discovered",
        50,
        100,
      );
      expect(found).toMatchObject({ keys: [{ key: `${prefix}failover`, pattern: prefix }], errors: [], isComplete: true });
      const read = await source.observe(found.keys);
      expect(read.observations[0]).toMatchObject({ holder: "pod-f", waiters: [] });
    } finally {
      await source.close();
    }
    expect(await etcdKind.checkReachable(cluster, REQUEST_BOUND_MS)).toMatchObject({
      status: "degraded",
      reason: expect.stringMatching(/^etcd 127\.0\.0\.1:\d+: connection refused/),
    });
    expect(await etcdKind.checkReachable(config({ endpoints: [open.url] }), REQUEST_BOUND_MS)).toEqual({ status: "ok", reason: null });
    const down = await etcdKind.checkReachable(config({ endpoints: [deadUrl] }), REQUEST_BOUND_MS);
    expect(down.status).toBe("down");
    expect(down.reason).not.toContain("\n");
  });

  it("a read that cannot reach any member is an error per election, never a free one", async () => {
    const source = createEtcdHoldSource(config({ endpoints: [deadUrl] }));
    try {
      const read = await source.observe([{ key: `${prefix}failover`, pattern: prefix }]);
      expect(read.observations).toEqual([]);
      expect(read.errors).toEqual([{ key: `${prefix}failover`, message: expect.stringMatching(/connection refused/) }]);
      expect(await source.discover()).toMatchObject({ keys: [], isComplete: false });
    } finally {
      await source.close();
    }
  });

  it("authenticates as a read-only user (password from a file): reads, lease TTLs and the watch all work", async () => {
    const election = `${prefix}secured`;
    // The service campaigns with write access (root here); Baton only reads.
    const contender = startElectCandidate(secured.url, election, "pod-s", ["--user=root:root-pw"]);
    contenders.push(contender);
    const cluster = config({ endpoints: [secured.url], user: "baton", passwordFile: path.join(secretDir, "password") });
    const source = createEtcdHoldSource(cluster);
    const hints: HoldHint[] = [];
    try {
      const watch = await source.watch(
        (h) => hints.push(...h),
        () => undefined,
      );
      expect(watch.mode).toBe("watch");
      const found = await waitFor(
        () => source.discover(),
        (d) => d.keys.length === 1,
        "the secured election to be discovered",
        50,
        100,
      );
      const read = await source.observe(found.keys);
      expect(read.errors).toEqual([]);
      expect(read.observations[0]).toMatchObject({ holder: "pod-s", ttlMs: expect.any(Number) });
      contender.signal("SIGTERM");
      await waitFor(
        async () => hints,
        (h) => h.some((hint) => hint.kind === "release"),
        "the resign to arrive through the watch",
        50,
        100,
      );
      expect(hints.find((hint) => hint.kind === "release")).toMatchObject({ key: election, event: "DELETE" });
    } finally {
      await source.close();
    }
    expect(await etcdKind.checkReachable(cluster, REQUEST_BOUND_MS)).toEqual({ status: "ok", reason: null });
  });

  it("a wrong password is one line naming the user", async () => {
    const source = createEtcdHoldSource(config({ endpoints: [secured.url], user: "baton", password: "wrong" }));
    try {
      const read = await source.discover();
      expect(read.errors).toHaveLength(1);
      expect(read.errors[0]!.message).toMatch(/authentication as "baton" failed \(.*\): check user and password/);
      expect(read.errors[0]!.message).not.toContain("\n");
    } finally {
      await source.close();
    }
  });

  it("reads over TLS with the configured CA; without it, one line says TLS failed", async () => {
    const election = `${prefix}tls`;
    const cert = path.join(secretDir, "cert.pem");
    contenders.push(startElectCandidate(tlsServer.url, election, "pod-t", [`--cacert=${cert}`]));
    const source = createEtcdHoldSource(config({ endpoints: [tlsServer.url], tls: { caFile: cert } }));
    try {
      const found = await waitFor(
        () => source.discover(),
        (d) => d.keys.length === 1,
        "the election to be discovered over TLS",
        50,
        100,
      );
      expect((await source.observe(found.keys)).observations[0]).toMatchObject({ holder: "pod-t" });
    } finally {
      await source.close();
    }
    const untrusted = await etcdKind.checkReachable(config({ endpoints: [tlsServer.url] }), REQUEST_BOUND_MS);
    expect(untrusted).toMatchObject({ status: "down", reason: expect.stringMatching(/TLS failed \(.+\): check tls\.caFile or tls\.rejectUnauthorized$/) });
  });

  it("a watch opened while etcd is down starts when it answers, and asks for a full read then", async () => {
    const late = await startEtcdServer();
    await late.stop();
    const source = createEtcdHoldSource(config({ endpoints: [late.url] }));
    const hints: HoldHint[] = [];
    const resyncs: string[] = [];
    try {
      const watch = await source.watch(
        (h) => hints.push(...h),
        (reason) => resyncs.push(reason),
      );
      expect(watch.mode).toBe("none");
      await late.restart();
      await waitFor(
        async () => resyncs,
        (r) => r.length > 0,
        "the late watch to start",
        100,
        100,
      );
      expect(resyncs[0]).toMatch(/started late/);
      expect(watch.mode).toBe("watch");
      contenders.push(startElectCandidate(late.url, `${prefix}late`, "pod-l"));
      await waitFor(
        async () => hints,
        (h) => h.some((hint) => hint.key === `${prefix}late`),
        "the new candidate's hint",
        100,
        100,
      );
    } finally {
      await source.close();
      await stopEtcdServers([late]);
    }
  });
});
