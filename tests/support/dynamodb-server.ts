import { spawn } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ListTablesCommand } from "@aws-sdk/client-dynamodb";

import { pollUntil } from "@/tests/support/poll-until";
import { DYNAMODB_MAIN_CLASS, ensureDynamodbServerBuilt } from "@/tools/dynamodb-server/build-server";
import { findFreePort } from "@/tools/free-port";
import { guardProcessGroup, signalProcessGroup } from "@/tools/pulsar/process-guard";
import { readLogTail } from "@/tools/pulsar/read-log-tail";

// A test-owned DynamoDB Local 2.5.4 (tools/dynamodb-server/pom.xml, from Maven Central) on a
// free port, its database in a temporary directory (-sharedDb -dbPath, so that a restart keeps
// the tables, as a real table outlives an outage), in its own process group, guarded so that it
// dies with the test process, and stopped (directory removed) after.

/** DynamoDB Local takes any credentials made of letters and digits; the SDK needs some. */
export const TEST_AWS_CREDENTIALS = { accessKeyId: "baton", secretAccessKey: "baton" };
export const TEST_AWS_REGION = "us-east-1";

export type TestDynamodbServer = {
  port: number;
  endpoint: string;
  /** An SDK client for the test's own writes. */
  client: DynamoDBClient;
  /** Creates a dynamodb-lock-client table (partition key `key`, optional sort key) and waits until it is ACTIVE. */
  createLockTable(tableName: string, options?: { partitionKeyName?: string; sortKeyName?: string }): Promise<void>;
  /** Stops the server (SIGKILL), keeping its database. */
  stop(): Promise<void>;
  /** Starts it again on the same port and database. */
  restart(): Promise<void>;
  /** SIGSTOP / SIGCONT: a server that is there but does not answer. */
  pause(): void;
  resume(): void;
  /** CPU time the server's JVM has used so far (from /proc), in ms. */
  cpuMs(): number;
  dispose(): Promise<void>;
};

function readJvmCpuMs(shellPid: number): number {
  const children = readFileSync(`/proc/${shellPid}/task/${shellPid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
  for (const pid of children) {
    if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(DYNAMODB_MAIN_CLASS)) continue;
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    // utime and stime are fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  }
  throw new Error(`no DynamoDB Local JVM under process ${shellPid}`);
}

export async function startDynamodbServer(): Promise<TestDynamodbServer> {
  const build = await ensureDynamodbServerBuilt({ log: (line) => process.stderr.write(`[dynamodb] ${line}\n`) });
  const port = await findFreePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), "baton-dynamodb-"));
  mkdirSync(path.join(dir, "db"));
  const logFile = path.join(dir, "server.log");
  const client = new DynamoDBClient({
    region: TEST_AWS_REGION,
    endpoint,
    credentials: TEST_AWS_CREDENTIALS,
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 },
  });
  let pid = 0;
  let release: () => void = () => undefined;

  async function isAnswering(): Promise<boolean> {
    try {
      await client.send(new ListTablesCommand({}));
      return true;
    } catch {
      return false;
    }
  }

  async function launch(): Promise<void> {
    const args = [
      "-Xmx512m",
      "-XX:+UseSerialGC",
      `-Djava.library.path=${build.libraryPath}`,
      `@${build.classpathArgFile}`,
      DYNAMODB_MAIN_CLASS,
      "-sharedDb",
      "-dbPath",
      path.join(dir, "db"),
      "-port",
      String(port),
      "-disableTelemetry",
    ];
    const logFd = openSync(logFile, "a");
    // In the temporary directory: DynamoDB Local writes dynamodb-local-metadata.json where it runs.
    // The JVM cannot watch its parent, so a shell runs beside it: `cat` returns when our end of
    // its stdin closes (this process died, even of SIGKILL) and the shell then kills the server.
    const child = spawn("sh", ["-c", '"$0" "$@" & server=$!; cat >/dev/null; kill -9 "$server"', build.java, ...args], {
      stdio: ["pipe", logFd, logFd],
      detached: true,
      cwd: dir,
    });
    closeSync(logFd);
    if (child.pid === undefined) throw new Error("could not start a shell for DynamoDB Local");
    pid = child.pid;
    child.stdin!.on("error", () => undefined);
    child.unref();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    release = guardProcessGroup(pid);
    try {
      await pollUntil(isAnswering, (isUp) => isUp, { description: `DynamoDB Local on port ${port} to answer`, maxAttempts: 300, intervalMs: 100 });
    } catch (error) {
      await stop();
      throw new Error(`${(error as Error).message}\n${readLogTail(logFile, 30)}`);
    }
  }

  async function stop(): Promise<void> {
    signalProcessGroup(pid, "SIGKILL");
    await pollUntil(
      async () => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      },
      (isGone) => isGone,
      { description: `DynamoDB Local ${pid} to exit`, maxAttempts: 100, intervalMs: 50 },
    );
    release();
  }

  try {
    await launch();
  } catch (error) {
    client.destroy();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    endpoint,
    client,
    async createLockTable(tableName, options = {}) {
      const partitionKeyName = options.partitionKeyName ?? "key";
      const keys = [
        { AttributeName: partitionKeyName, KeyType: "HASH" as const },
        ...(options.sortKeyName ? [{ AttributeName: options.sortKeyName, KeyType: "RANGE" as const }] : []),
      ];
      await client.send(
        new CreateTableCommand({
          TableName: tableName,
          KeySchema: keys,
          AttributeDefinitions: keys.map((key) => ({ AttributeName: key.AttributeName, AttributeType: "S" as const })),
          BillingMode: "PAY_PER_REQUEST",
        }),
      );
      await pollUntil(
        () => client.send(new DescribeTableCommand({ TableName: tableName })),
        (answer) => answer.Table?.TableStatus === "ACTIVE",
        { description: `table ${tableName} to be ACTIVE`, maxAttempts: 100, intervalMs: 100 },
      );
    },
    stop,
    restart: launch,
    pause: () => void signalProcessGroup(pid, "SIGSTOP"),
    resume: () => void signalProcessGroup(pid, "SIGCONT"),
    cpuMs: () => readJvmCpuMs(pid),
    async dispose() {
      client.destroy();
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
