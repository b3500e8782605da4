import { readFileSync } from "node:fs";
import type { ConnectionOptions } from "node:tls";

import { Cluster, Redis, type RedisOptions } from "ioredis";

import type { CommandLimiter } from "./command-limiter";
import type { RedisClusterConfig } from "./redis-config";
import { listMasterUrls } from "./redis-config";
import { RedisSourceError, toRedisSourceError } from "./redis-error";

/** How to reach one master: the url plus what the config resolved (password, TLS files read). */
export type RedisEndpoint = {
  url: string;
  password?: string;
  tls?: ConnectionOptions;
  requestTimeoutMs: number;
};

/** One master Baton talks to: its commands connection and a name for messages. */
export type RedisMaster = {
  /** host:port, as errors and Redlock details name it. */
  id: string;
  client: Redis;
  endpoint: RedisEndpoint;
};

function readSecretFile(setting: string, file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new RedisSourceError(setting, `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/** The endpoints of a source's masters, with passwordFile and TLS files read once at start-up. */
export function resolveEndpoints(config: RedisClusterConfig): RedisEndpoint[] {
  const password = config.passwordFile ? readSecretFile(`${config.name}.passwordFile`, config.passwordFile).trim() : config.password;
  return listMasterUrls(config).map((url) => {
    const isTls = url.toLowerCase().startsWith("rediss://") || config.tls !== undefined;
    const tls: ConnectionOptions | undefined = isTls
      ? {
          ca: config.tls?.caFile ? readSecretFile(`${config.name}.tls.caFile`, config.tls.caFile) : undefined,
          cert: config.tls?.certFile ? readSecretFile(`${config.name}.tls.certFile`, config.tls.certFile) : undefined,
          key: config.tls?.keyFile ? readSecretFile(`${config.name}.tls.keyFile`, config.tls.keyFile) : undefined,
          rejectUnauthorized: config.tls?.rejectUnauthorized ?? true,
        }
      : undefined;
    return { url, password, tls, requestTimeoutMs: config.requestTimeoutMs };
  });
}

export function describeEndpoint(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || "6379"}`;
}

/** The database number a url selects (redis://host/2 -> 2), for keyspace channel names. */
export function databaseOf(url: string): number {
  const path = new URL(url).pathname.replace(/^\//, "");
  return path === "" ? 0 : Number(path);
}

function connectionOptions(endpoint: RedisEndpoint, name: string): RedisOptions {
  return {
    ...(endpoint.password === undefined ? {} : { password: endpoint.password }),
    ...(endpoint.tls === undefined ? {} : { tls: endpoint.tls }),
    connectionName: name,
    // Connect on first use, so a source whose Redis is down at start-up still starts (and
    // reports errors per poll) instead of failing the worker.
    lazyConnect: true,
    // RESP2: the plain replies every Redis since 2.x gives, and the pub/sub channel that client
    // tracking's REDIRECT mode needs.
    protocol: 2,
    connectTimeout: endpoint.requestTimeoutMs,
    commandTimeout: endpoint.requestTimeoutMs,
    // A command waits for at most one reconnect attempt: a Redis that is down answers the poll
    // with errors within about a second, which the poller shows as stale locks.
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  };
}

/** A commands connection to one master (not yet connected: lazy). */
/**
 * Why each client's connection last failed. A command that fails while disconnected only says
 * "Connection is closed"; the socket's own error (refused, TLS, NOAUTH) says why.
 */
const lastConnectionErrors = new WeakMap<Redis, Error>();

export function createRedisConnection(endpoint: RedisEndpoint, name = "baton-locks"): Redis {
  const client = new Redis(endpoint.url, connectionOptions(endpoint, name));
  trackConnectionErrors(client);
  return client;
}

function trackConnectionErrors(client: Redis): void {
  // The listener also keeps ioredis from logging each reconnect failure to stderr as an
  // "Unhandled error event": errors surface through the commands that fail.
  client.on("error", (error: Error) => lastConnectionErrors.set(client, error));
  client.on("ready", () => lastConnectionErrors.delete(client));
}

/** A command's error in words, with the connection's own error when the command only saw it closed. */
export function describeFailure(client: Redis, error: unknown, master: string, timeoutMs: number): RedisSourceError {
  const connectionError = lastConnectionErrors.get(client);
  const isDisconnected = error instanceof Error && /max retries per request|Connection is closed|Stream isn't writeable/i.test(error.message);
  return toRedisSourceError(isDisconnected && connectionError ? connectionError : error, master, timeoutMs);
}

export function createMaster(endpoint: RedisEndpoint, name?: string): RedisMaster {
  return { id: describeEndpoint(endpoint.url), client: createRedisConnection(endpoint, name), endpoint };
}

/** The masters of a Redis Cluster, found from a seed node (CLUSTER SLOTS through ioredis). */
export async function connectClusterMasters(
  seed: RedisEndpoint,
): Promise<{ cluster: Cluster; masters: () => RedisMaster[]; ownerOfSlot: (slot: number) => string | undefined }> {
  const options = connectionOptions(seed, "baton-locks");
  const parsed = new URL(seed.url);
  const cluster = new Cluster([{ host: parsed.hostname, port: Number(parsed.port || 6379) }], {
    lazyConnect: true,
    redisOptions: { ...options, lazyConnect: false },
    slotsRefreshTimeout: seed.requestTimeoutMs,
    clusterRetryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  cluster.on("error", () => undefined);
  cluster.on("+node", (client: Redis) => trackConnectionErrors(client));
  try {
    await cluster.connect();
  } catch (error) {
    cluster.disconnect();
    throw toRedisSourceError(error, describeEndpoint(seed.url), seed.requestTimeoutMs);
  }
  return {
    cluster,
    // ioredis keeps, per slot, the node keys ("host:port") serving it, the master first.
    ownerOfSlot: (slot) => cluster.slots[slot]?.[0],
    masters: () =>
      cluster.nodes("master").map((client) => {
        const host = client.options.host ?? "127.0.0.1";
        const port = client.options.port ?? 6379;
        return { id: `${host}:${port}`, client, endpoint: { ...seed, url: `${seed.url.split("://")[0]}://${host}:${port}` } };
      }),
  };
}

export type Command = [name: string, ...args: (string | number)[]];

/** Errors that are about one key's value or slot, not about the connection. */
const KEY_ERROR = /^(WRONGTYPE|MOVED|ASK) /;

export type PipelineAnswer = {
  /** One [error, reply] per command, in order. */
  replies: [Error | null, unknown][];
  /** ISO time the pipeline's answer arrived. */
  answeredAt: string;
};

/**
 * Sends commands to one master as one pipeline, spending one budget unit per command. Throws a
 * RedisSourceError when the master does not answer; per-command errors (WRONGTYPE) come back in
 * `replies`.
 */
export async function sendPipeline(master: RedisMaster, limiter: CommandLimiter, commands: Command[]): Promise<PipelineAnswer> {
  if (commands.length === 0) return { replies: [], answeredAt: new Date().toISOString() };
  return limiter.run(async () => {
    try {
      const pipeline = master.client.pipeline();
      for (const [name, ...args] of commands) pipeline.call(name, ...args);
      const replies = (await pipeline.exec()) ?? [];
      const answeredAt = new Date().toISOString();
      // Every command failing the same way (a dropped connection, NOAUTH/WRONGPASS, LOADING)
      // is the master's failure, not the keys'; a wrong type or a moved slot is the key's.
      const first = replies[0]?.[0];
      if (first && !KEY_ERROR.test(first.message) && replies.every(([error]) => error !== null && error.message === first.message)) {
        throw first;
      }
      return { replies: replies as [Error | null, unknown][], answeredAt };
    } catch (error) {
      throw describeFailure(master.client, error, master.id, master.endpoint.requestTimeoutMs);
    }
  }, commands.length);
}

/** One command to one master, within the budget. */
export async function sendCommand(master: RedisMaster, limiter: CommandLimiter, command: Command): Promise<unknown> {
  return limiter.run(async () => {
    try {
      const [name, ...args] = command;
      return await master.client.call(name, ...args);
    } catch (error) {
      throw describeFailure(master.client, error, master.id, master.endpoint.requestTimeoutMs);
    }
  });
}
