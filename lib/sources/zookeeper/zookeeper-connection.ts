import { Socket } from "node:net";

import zookeeper, { type Client, type Event, type Stat } from "node-zookeeper-client";

import type { RateLimiter } from "@/lib/poller/rate-limiter";

import { describeZookeeperError, ZookeeperSourceError } from "./zookeeper-error";

// Baton's one transport to a ZooKeeper ensemble: one session, every request through the
// request budget and a timeout, a new session when the old one expired.
//
// Client: `node-zookeeper-client` (pure JavaScript), not `zookeeper` (a native binding over the
// C client). Both were tried here against ZooKeeper 3.9.3: both read the nodes, set watches and
// pipelined 10,000 `exists` in about one second. The pure one installs without a compiler or
// install scripts (CI and `npm ci` stay plain), tells the negotiated session timeout and the
// session id, and re-sends its watches after a reconnect (SetWatches). Its last release is from
// 2022, but what Baton uses (getChildren, getData, auth, watches) is the stable 3.x wire
// protocol; everything it touches is in this file, so a change of client stays here.

export type ZnodeStat = {
  /** The owning session as ZooKeeper prints it ("0x100007812b70000"); null for a persistent node. */
  ephemeralOwner: string | null;
  ctimeMs: number;
  czxid: string;
  /**
   * The zxid of the last write of its data: orders a write against other nodes' creations (Patroni's
   * failover request against its leader node). Always set by this connection; optional so that a
   * stat made by hand need not name it.
   */
  mzxid?: string;
  numChildren: number;
};

export type SessionEvent = "reconnected" | "expired";

export type ZookeeperConnection = {
  /** Resolves once connected; throws a one-line error when not connected within the request timeout. */
  ready(): Promise<void>;
  /** The children of `path` (null when it does not exist); `watch` is called once when they change. */
  getChildren(path: string, watch?: (event: { path: string; type: string }) => void): Promise<string[] | null>;
  /** The data and stat of `path`, or null when it does not exist; `watch` is called once when it changes or goes. */
  getData(path: string, watch?: (event: { path: string; type: string }) => void): Promise<{ data: Buffer | null; stat: ZnodeStat } | null>;
  /**
   * The stat of `path`, or null when it does not exist; `watch` is called once when the node is
   * created, deleted or its data changes (set also on a node that does not exist yet).
   */
  exists(path: string, watch?: (event: { path: string; type: string }) => void): Promise<ZnodeStat | null>;
  /** Baton's own session: its id and the timeout the server granted (known only once connected). */
  session(): { id: string | null; timeoutMs: number | null };
  /**
   * The connection requests go over now, by number (a new one at every connect, of the same
   * session or a new one); null while not connected. A watch armed on one connection is known to
   * have fired for every change before a later answer on that same connection: past a disconnect
   * that is no longer known (a new session has lost them all).
   */
  connectionNumber(): number | null;
  /** Called after a reconnect (watches may have missed changes) or a new session (watches are gone). */
  onSession(listener: (event: SessionEvent) => void): () => void;
  close(): Promise<void>;
};

export type ZookeeperConnectionOptions = {
  connectString: string;
  sessionTimeoutMs: number;
  requestTimeoutMs: number;
  /** "user:password" for the digest scheme. */
  digest?: string;
  limiter: RateLimiter;
  /** Where the connection says it dropped a connection whose session never completed. */
  log?: (line: string) => void;
};

/**
 * How long a client may hold a connection without a session before it is dropped and made again.
 * Twice the request timeout, at most the session timeout (a session out of touch that long is
 * expired on the server anyway).
 */
export function sessionBoundMs(options: Pick<ZookeeperConnectionOptions, "sessionTimeoutMs" | "requestTimeoutMs">): number {
  return Math.min(options.sessionTimeoutMs, 2 * options.requestTimeoutMs);
}

const EVENT_NAMES: Record<number, string> = { 1: "created", 2: "deleted", 3: "changed", 4: "children" };

/** A session id as ZooKeeper's own tools print it: 0x and the hex digits without leading zeros. */
export function formatSessionId(bytes: Buffer): string | null {
  const value = bytes.readBigUInt64BE(0);
  return value === 0n ? null : `0x${value.toString(16)}`;
}

function toStat(stat: Stat): ZnodeStat {
  return {
    ephemeralOwner: formatSessionId(stat.ephemeralOwner),
    ctimeMs: Number(stat.ctime.readBigInt64BE(0)),
    czxid: `0x${stat.czxid.readBigUInt64BE(0).toString(16)}`,
    mzxid: `0x${stat.mzxid.readBigUInt64BE(0).toString(16)}`,
    numChildren: stat.numChildren,
  };
}

function isNoNode(error: unknown): boolean {
  return (error as { getCode?: () => number } | undefined)?.getCode?.() === zookeeper.Exception.NO_NODE;
}

/**
 * Drops the connection a client holds open without a session, so that the client connects again
 * (a new TCP connection, a new handshake; a session it had is resumed if the server still has it).
 * node-zookeeper-client clears its connect timeout once TCP connects and has none on the session
 * handshake, and offers no way to abandon an attempt: closing the client instead leaves a late
 * answer to the handshake to throw inside its socket handler (an uncaught "Unknown code" that
 * would end the worker). One of the two places Baton reaches into the client's internals (its
 * connectionManager's socket, with coalesceWrites below), checked rather than assumed. Returns whether there was one.
 */
function dropOpenSocket(current: Client): boolean {
  const socket = openSocketOf(current);
  // Not yet connected (the client's own connect timeout applies) or already closed: nothing held.
  if (socket === null) return false;
  socket.destroy();
  return true;
}

/** The client's open socket (its connectionManager's), checked rather than assumed: null when it has none. */
function openSocketOf(current: Client): Socket | null {
  const manager: unknown = Reflect.get(current, "connectionManager");
  const socket: unknown = typeof manager === "object" && manager !== null ? Reflect.get(manager, "socket") : undefined;
  return socket instanceof Socket && !socket.destroyed && socket.readyState === "open" ? socket : null;
}

const corkedSockets = new WeakSet<Socket>();

/**
 * Holds the client's writes until this turn of the event loop is over. node-zookeeper-client
 * writes each request to its socket as it is queued (Nagle off): a system call and a TCP segment a
 * request. Corked, the requests a read sends at once (every lock at once, read-each-ref.ts) leave
 * in one `writev` and reach the server together: the first read of 1,000 leader nodes took about
 * a tenth less time and a quarter less of the server's CPU (docs/kinds/zookeeper.md). The other
 * place Baton reaches into the client's socket; without one the client writes as before.
 */
function coalesceWrites(current: Client): void {
  const socket = openSocketOf(current);
  if (socket === null || corkedSockets.has(socket)) return;
  corkedSockets.add(socket);
  socket.cork();
  setImmediate(() => {
    corkedSockets.delete(socket);
    socket.uncork();
  });
}

export function createZookeeperConnection(options: ZookeeperConnectionOptions): ZookeeperConnection {
  const listeners = new Set<(event: SessionEvent) => void>();
  // The client keeps one registration per (path, function): the same wrapper for the same
  // watch, so re-arming on every read does not pile up listeners on a quiet lock.
  const wrappers = new WeakMap<(event: { path: string; type: string }) => void, (event: Event) => void>();
  function wrap(watch: (event: { path: string; type: string }) => void): (event: Event) => void {
    let wrapper = wrappers.get(watch);
    if (!wrapper) {
      wrapper = (event: Event) => watch({ path: event.getPath(), type: EVENT_NAMES[event.getType()] ?? event.getName() });
      wrappers.set(watch, wrapper);
    }
    return wrapper;
  }
  let isClosed = false;
  let client: Client;
  let isConnected = false;
  let connections = 0;
  let connectedWaiters: (() => void)[] = [];
  // A server that holds the connection open but stops answering (paused, overloaded) would make
  // every queued request wait out its own timeout in turn: after one timed out, the others fail
  // at once with the same message for one timeout's length, then are tried again.
  let unanswered: { message: string; atMs: number } | null = null;
  let boundTimer: NodeJS.Timeout | null = null;
  /** Connections dropped in a row without a session: the log says so once per outage. */
  let droppedInARow = 0;

  /**
   * A server that accepts the connection but does not answer the handshake (ZooKeeper starting
   * up) would hold the client without a session for good: past the bound, the connection it holds
   * is dropped and the client connects again; again every bound until a session completes.
   */
  function armSessionBound(current: Client): void {
    if (boundTimer !== null) clearTimeout(boundTimer);
    boundTimer = setTimeout(() => {
      boundTimer = null;
      if (client !== current || isConnected || isClosed) return;
      if (dropOpenSocket(current)) {
        if (droppedInARow === 0)
          options.log?.(
            `ZooKeeper ${options.connectString}: connected but no session within ${sessionBoundMs(options)} ms; connecting again (every ${sessionBoundMs(options)} ms until a session completes)`,
          );
        droppedInARow += 1;
      }
      armSessionBound(current);
    }, sessionBoundMs(options));
    boundTimer.unref();
  }

  function open(): void {
    // retries 0: a request is sent once; what is lost in a disconnect comes back as a timeout here
    // and as a stale lock in the cycles, not as a retry storm.
    const next = zookeeper.createClient(options.connectString, { sessionTimeout: options.sessionTimeoutMs, spinDelay: 200, retries: 0 });
    client = next;
    let hasConnected = false;
    armSessionBound(next);
    next.on("state", (state) => {
      if (client !== next) return;
      if (state === zookeeper.State.SYNC_CONNECTED || state === zookeeper.State.CONNECTED_READ_ONLY) {
        if (droppedInARow > 0)
          options.log?.(`ZooKeeper ${options.connectString}: session established after ${droppedInARow} dropped connection${droppedInARow === 1 ? "" : "s"}`);
        droppedInARow = 0;
        if (boundTimer !== null) clearTimeout(boundTimer);
        boundTimer = null;
        isConnected = true;
        connections += 1;
        const waiters = connectedWaiters;
        connectedWaiters = [];
        for (const wake of waiters) wake();
        // The first connection of a session has nothing to catch up on; a later one may have
        // missed changes while the server was out of reach.
        if (hasConnected) for (const listener of listeners) listener("reconnected");
        hasConnected = true;
      } else if (state === zookeeper.State.DISCONNECTED) {
        isConnected = false;
        armSessionBound(next);
      } else if (state === zookeeper.State.AUTH_FAILED) {
        // The server refused the credentials and closed the session: every request says so
        // rather than waiting for a connection that will not come.
        isConnected = false;
        if (boundTimer !== null) clearTimeout(boundTimer);
        boundTimer = null;
        unanswered = { message: `ZooKeeper ${options.connectString}: authentication failed: check digest or digestFile`, atMs: Number.POSITIVE_INFINITY };
      } else if (state === zookeeper.State.EXPIRED) {
        isConnected = false;
        next.close();
        if (isClosed) return;
        // An expired session is dead for good (its watches with it): start a new one.
        open();
        for (const listener of listeners) listener("expired");
      }
    });
    if (options.digest) next.addAuthInfo("digest", Buffer.from(options.digest));
    next.connect();
  }
  open();

  async function whenConnected(): Promise<void> {
    if (isConnected) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        connectedWaiters = connectedWaiters.filter((waiter) => waiter !== wake);
        reject(
          new ZookeeperSourceError(
            `ZooKeeper ${options.connectString}: not connected within ${options.requestTimeoutMs} ms (is the ensemble up and reachable?)`,
          ),
        );
      }, options.requestTimeoutMs);
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      connectedWaiters.push(wake);
    });
  }

  /** One request: within the budget, only on a live connection, answered within the timeout. */
  function request<T>(what: string, send: (current: Client, done: (error: unknown, value?: T) => void) => void): Promise<T> {
    return options.limiter.run(async () => {
      if (unanswered !== null && (unanswered.atMs === Number.POSITIVE_INFINITY || performance.now() - unanswered.atMs < options.requestTimeoutMs))
        throw new ZookeeperSourceError(unanswered.message);
      await whenConnected();
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          const message = `ZooKeeper ${options.connectString}: ${what} got no answer within ${options.requestTimeoutMs} ms`;
          unanswered = { message, atMs: performance.now() };
          reject(new ZookeeperSourceError(message));
        }, options.requestTimeoutMs);
        coalesceWrites(client);
        send(client, (error, value) => {
          clearTimeout(timer);
          unanswered = null;
          if (error) reject(new ZookeeperSourceError(`ZooKeeper ${options.connectString}: ${what}: ${describeZookeeperError(error)}`, error));
          else resolve(value as T);
        });
      });
    });
  }

  return {
    ready: whenConnected,

    // A node that does not exist is an answer (null), not an error: no error object is made for it,
    // a cost a read of many absent nodes (side nodes not written yet) would pay once each.
    getChildren(path, watch) {
      return request<string[] | null>(`getChildren ${path}`, (current, done) => {
        const answer = (error: unknown, children: string[]) => (isNoNode(error) ? done(null, null) : done(error, children));
        if (watch) current.getChildren(path, wrap(watch), answer);
        else current.getChildren(path, answer);
      });
    },

    getData(path, watch) {
      return request(`getData ${path}`, (current, done: (error: unknown, value?: { data: Buffer | null; stat: ZnodeStat } | null) => void) => {
        const answer = (error: unknown, data: Buffer | undefined, stat: Stat) =>
          isNoNode(error) ? done(null, null) : done(error, error ? undefined : { data: data ?? null, stat: toStat(stat) });
        if (watch) current.getData(path, wrap(watch), answer);
        else current.getData(path, answer);
      });
    },

    exists(path, watch) {
      return request<ZnodeStat | null>(`exists ${path}`, (current, done) => {
        const answer = (error: unknown, stat?: Stat) => done(error, error ? undefined : stat ? toStat(stat) : null);
        if (watch) current.exists(path, wrap(watch), answer);
        else current.exists(path, answer);
      });
    },

    session() {
      if (!isConnected) return { id: null, timeoutMs: null };
      return { id: formatSessionId(client.getSessionId()), timeoutMs: client.getSessionTimeout() };
    },

    connectionNumber() {
      return isConnected ? connections : null;
    },

    onSession(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async close() {
      isClosed = true;
      if (boundTimer !== null) clearTimeout(boundTimer);
      listeners.clear();
      client.close();
    },
  };
}
