import { createHash } from "node:crypto";

import zookeeper, { type Client } from "node-zookeeper-client";

// A plain ZooKeeper session for tests: makes and removes nodes by hand (Kazoo's layout, an
// admin's cleanup), and stands for a participant whose session can be closed or left to expire.

export type TestSession = {
  client: Client;
  /** The session id as ZooKeeper prints it (0x...). */
  sessionId: string;
  mkdirp(path: string): Promise<void>;
  /** Creates a node; returns its full path (with the sequence for sequential modes). */
  create(path: string, data: string, mode: "persistent" | "ephemeral" | "ephemeral-sequential", acl?: zookeeper.ACL[]): Promise<string>;
  remove(path: string): Promise<void>;
  children(path: string): Promise<string[]>;
  /** Closes the session: its ephemeral nodes go at once. */
  close(): Promise<void>;
};

const MODES = {
  persistent: zookeeper.CreateMode.PERSISTENT,
  ephemeral: zookeeper.CreateMode.EPHEMERAL,
  "ephemeral-sequential": zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL,
} as const;

function call<T>(send: (done: (error: unknown, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => send((error, value) => (error ? reject(error) : resolve(value as T))));
}

/** An ACL that lets only the digest user `user:password` do anything (ZooKeeper's digest: base64 of SHA-1 of "user:password"). */
export function digestAcl(credentials: string): zookeeper.ACL[] {
  const user = credentials.split(":")[0]!;
  const hash = createHash("sha1").update(credentials).digest("base64");
  return [new zookeeper.ACL(zookeeper.Permission.ALL, new zookeeper.Id("digest", `${user}:${hash}`))];
}

export async function openTestSession(connectString: string, sessionTimeoutMs = 10_000, options: { digest?: string } = {}): Promise<TestSession> {
  const client = zookeeper.createClient(connectString, { sessionTimeout: sessionTimeoutMs, spinDelay: 100, retries: 0 });
  if (options.digest) client.addAuthInfo("digest", Buffer.from(options.digest));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ZooKeeper session with ${connectString} within 10 s`)), 10_000);
    client.once("connected", () => {
      clearTimeout(timer);
      resolve();
    });
    client.connect();
  });
  return {
    client,
    sessionId: `0x${client.getSessionId().readBigUInt64BE(0).toString(16)}`,
    mkdirp: (path) => call<string>((done) => client.mkdirp(path, done)).then(() => undefined),
    create: (path, data, mode, acl) =>
      call<string>((done) =>
        acl ? client.create(path, Buffer.from(data), acl, MODES[mode], done) : client.create(path, Buffer.from(data), MODES[mode], done),
      ),
    remove: (path) => call<void>((done) => client.remove(path, -1, (error) => done(error))),
    children: (path) => call<string[]>((done) => client.getChildren(path, (error, children) => done(error, children))),
    close: async () => {
      await new Promise<void>((resolve) => {
        client.once("disconnected", () => resolve());
        client.close();
        setTimeout(resolve, 1_000);
      });
    },
  };
}
