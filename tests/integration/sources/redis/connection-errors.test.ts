import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createRedisLockSource, parseRedisClusterConfig } from "@/lib/sources/redis";
import { startRedisServer, stopRedisServers, type TestRedisServer } from "@/tests/support/redis-servers";

describe("connection settings and failures, on a test-owned server with a password", () => {
  let server: TestRedisServer;
  let dir: string;

  beforeAll(async () => {
    server = await startRedisServer({ password: "s3cret-pw" });
    dir = mkdtempSync(path.join(os.tmpdir(), "baton-redis-secret-"));
    const admin = new Redis(server.url, { password: "s3cret-pw", maxRetriesPerRequest: 0 });
    await admin.set("lock:guarded", "pod-1:abc", "PX", 60_000);
    admin.disconnect();
  });

  afterAll(async () => {
    await stopRedisServers(server ? [server] : []);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const key = { key: "lock:guarded", pattern: "lock:*" };

  it("reads with the password from passwordFile", async () => {
    const file = path.join(dir, "password");
    writeFileSync(file, "s3cret-pw\n");
    const source = createRedisLockSource(
      parseRedisClusterConfig({ kind: "redis", name: "pw", url: server.url, passwordFile: file, patterns: [{ match: "lock:*" }] }),
    );
    try {
      expect((await source.observe([key])).observations[0]).toMatchObject({ holder: "pod-1:abc" });
    } finally {
      await source.close();
    }
  });

  it("says authentication failed for a wrong password, per key, without the password", async () => {
    const source = createRedisLockSource(
      parseRedisClusterConfig({ kind: "redis", name: "pw", url: server.url, password: "wrong-pw", patterns: [{ match: "lock:*" }], requestTimeoutMs: 1_000 }),
    );
    try {
      const { observations, errors } = await source.observe([key]);
      expect(observations).toEqual([]);
      expect(errors).toHaveLength(1);
      expect(errors[0]!.message).toMatch(/^Redis 127\.0\.0\.1:\d+: authentication failed \(WRONGPASS/);
      expect(errors[0]!.message).not.toContain("wrong-pw");
    } finally {
      await source.close();
    }
  });

  it("turns a server that stops answering (SIGSTOP) into a timeout error naming the wait", async () => {
    const source = createRedisLockSource(
      parseRedisClusterConfig({
        kind: "redis",
        name: "paused",
        url: server.url,
        password: "s3cret-pw",
        patterns: [{ match: "lock:*" }],
        requestTimeoutMs: 500,
      }),
    );
    try {
      expect((await source.observe([key])).errors).toEqual([]);
      server.pause();
      try {
        const { observations, errors } = await source.observe([key]);
        expect(observations).toEqual([]);
        expect(errors).toEqual([
          { key: "lock:guarded", master: `127.0.0.1:${server.port}`, message: `Redis 127.0.0.1:${server.port}: no answer within 500 ms` },
        ]);
      } finally {
        server.resume();
      }
      expect((await source.observe([key])).observations[0]).toMatchObject({ holder: "pod-1:abc" });
    } finally {
      await source.close();
    }
  });

  it("refuses a passwordFile that cannot be read, naming the setting", () => {
    expect(() =>
      createRedisLockSource(
        parseRedisClusterConfig({ kind: "redis", name: "pw", url: server.url, passwordFile: path.join(dir, "missing"), patterns: [{ match: "lock:*" }] }),
      ),
    ).toThrow(/^Redis pw\.passwordFile: cannot read .*missing \(ENOENT\)$/);
  });
});

const run = promisify(execFile);

/** A CA and a server certificate for 127.0.0.1, made with openssl for this test only. */
async function makeCertificates(dir: string): Promise<{ caFile: string; certFile: string; keyFile: string }> {
  const file = (name: string) => path.join(dir, name);
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    file("ca.key"),
    "-out",
    file("ca.crt"),
    "-days",
    "1",
    "-subj",
    "/CN=baton-test-ca",
  ]);
  await run("openssl", ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", file("server.key"), "-out", file("server.csr"), "-subj", "/CN=127.0.0.1"]);
  writeFileSync(file("ext.cnf"), "subjectAltName=IP:127.0.0.1\n");
  await run("openssl", [
    "x509",
    "-req",
    "-in",
    file("server.csr"),
    "-CA",
    file("ca.crt"),
    "-CAkey",
    file("ca.key"),
    "-CAcreateserial",
    "-out",
    file("server.crt"),
    "-days",
    "1",
    "-extfile",
    file("ext.cnf"),
  ]);
  return { caFile: file("ca.crt"), certFile: file("server.crt"), keyFile: file("server.key") };
}

describe("a TLS-only test-owned server (rediss://)", () => {
  let server: TestRedisServer;
  let dir: string;
  let caFile: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "baton-redis-tls-"));
    const certificates = await makeCertificates(dir);
    caFile = certificates.caFile;
    server = await startRedisServer({ tls: certificates });
    const admin = new Redis(server.url, { tls: { ca: readFileSync(caFile) }, maxRetriesPerRequest: 0 });
    await admin.set("lock:tls", "pod-9:abc", "PX", 60_000);
    admin.disconnect();
  });

  afterAll(async () => {
    await stopRedisServers(server ? [server] : []);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const key = { key: "lock:tls", pattern: "lock:*" };
  const observeWith = async (tls: Record<string, unknown> | undefined) => {
    const source = createRedisLockSource(
      parseRedisClusterConfig({ kind: "redis", name: "tls", url: server.url, tls, patterns: [{ match: "lock:*" }], requestTimeoutMs: 2_000 }),
    );
    try {
      return await source.observe([key]);
    } finally {
      await source.close();
    }
  };

  it("reads through TLS with the CA from tls.caFile", async () => {
    expect((await observeWith({ caFile })).observations[0]).toMatchObject({ holder: "pod-9:abc" });
  });

  it("refuses the unknown CA by default, saying which setting to check", async () => {
    const { observations, errors } = await observeWith(undefined);
    expect(observations).toEqual([]);
    expect(errors[0]!.message).toMatch(/TLS failed \(.*certificate.*\): check tls\.caFile or tls\.rejectUnauthorized$/);
  });

  it("accepts any certificate with rejectUnauthorized: false", async () => {
    expect((await observeWith({ rejectUnauthorized: false })).observations[0]).toMatchObject({ holder: "pod-9:abc" });
  });
});
