import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { parseZookeeperClusterConfig } from "@/lib/sources/zookeeper/zookeeper-config";
import { zookeeperKind } from "@/lib/sources/zookeeper/zookeeper-kind";
import { createZookeeperSource } from "@/lib/sources/zookeeper/zookeeper-source";
import { digestAcl, openTestSession, type TestSession } from "@/tests/support/zookeeper-nodes";
import { startZookeeperServer, type TestZookeeperServer } from "@/tests/support/zookeeper-server";

// The source against a real ZooKeeper 3.9.3 whose lock node only a digest user may read: with
// the digest (given inline or in a file) Baton reads the holder; without it, or with a wrong
// password, the read fails with a line that says what to check, and the lock is not "free".

const CREDENTIALS = "locks-admin:s3cret-pw";
let server: TestZookeeperServer;
let owner: TestSession;
let secretDir: string;
const lockPath = "/secure/locks/payroll";

function sourceWith(extra: Record<string, unknown>, digestSecret?: string) {
  const config = parseZookeeperClusterConfig({
    kind: "zookeeper",
    name: "secure",
    connectString: server.connectString,
    requestTimeoutMs: 2_000,
    paths: [{ path: lockPath, recipe: "kazoo-lock" }],
    ...extra,
  });
  return createZookeeperSource({ ...config, digestSecret });
}

beforeAll(async () => {
  server = await startZookeeperServer();
  owner = await openTestSession(server.connectString, 10_000, { digest: CREDENTIALS });
  await owner.mkdirp("/secure/locks");
  await owner.create(lockPath, "", "persistent", digestAcl(CREDENTIALS));
  await owner.create(`${lockPath}/0123456789abcdef0123456789abcdef__lock__`, "payroll-1", "ephemeral-sequential", digestAcl(CREDENTIALS));
  secretDir = mkdtempSync(path.join(os.tmpdir(), "baton-zk-digest-"));
}, 120_000);

afterAll(async () => {
  await owner?.close();
  await server?.dispose();
  rmSync(secretDir, { recursive: true, force: true });
});

describe("digest auth", () => {
  it("with the digest the holder is read", async () => {
    const source = sourceWith({ digest: CREDENTIALS });
    try {
      const read = await source.observe([{ key: lockPath, pattern: lockPath }]);
      expect(read.errors).toEqual([]);
      expect(read.observations[0]).toMatchObject({ holder: "payroll-1", holderToken: expect.stringMatching(new RegExp(`^${owner.sessionId}/`)) });
    } finally {
      await source.close();
    }
  });

  it("with the digest in a file (resolveConfig reads it once)", async () => {
    const file = path.join(secretDir, "zk-digest");
    writeFileSync(file, `${CREDENTIALS}\n`);
    const resolved = zookeeperKind.resolveConfig(
      parseZookeeperClusterConfig({ kind: "zookeeper", name: "secure", connectString: server.connectString, digestFile: file, paths: [{ path: lockPath }] }),
      "BATON_CLUSTERS[0]",
      5_000,
    );
    expect(resolved.digestSecret).toBe(CREDENTIALS);
    const source = sourceWith({}, resolved.digestSecret);
    try {
      expect((await source.observe([{ key: lockPath, pattern: lockPath }])).observations[0]?.holder).toBe("payroll-1");
    } finally {
      await source.close();
    }
  });

  it.each([
    ["without a digest", {}],
    ["with a wrong password", { digest: "locks-admin:wrong" }],
  ])("%s the read fails, naming what to check; the lock is not read as free", async (_name, extra) => {
    const source = sourceWith(extra);
    try {
      const read = await source.observe([{ key: lockPath, pattern: lockPath }]);
      expect(read.observations).toEqual([]);
      expect(read.errors).toEqual([
        {
          key: lockPath,
          message: expect.stringMatching(
            /^ZooKeeper 127\.0\.0\.1:\d+: getChildren \/secure\/locks\/payroll: not allowed \(NO_AUTH\): check digest or digestFile, and the node's ACL$/,
          ),
        },
      ]);
    } finally {
      await source.close();
    }
  });
});
