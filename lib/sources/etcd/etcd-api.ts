import { z } from "zod";

import type { EtcdTransport } from "./etcd-transport";

// One function per gateway endpoint Baton uses, each answer parsed (tolerant of unknown fields,
// strict about the ones read). Keys and values travel as base64; int64s as decimal strings.

/** Keys per range page: a page of 1,000 election keys is ~150 KB of JSON. */
export const RANGE_PAGE_SIZE = 1_000;

const int64 = z.union([z.string().regex(/^-?\d+$/), z.number().int()]).transform((value) => String(value));
const optionalInt64 = int64.optional().transform((value) => value ?? "0");

export const headerSchema = z.object({ revision: optionalInt64 }).passthrough();

const keyValueSchema = z
  .object({
    key: z.string(),
    value: z.string().optional(),
    create_revision: optionalInt64,
    mod_revision: optionalInt64,
    lease: optionalInt64,
  })
  .passthrough();

const rangeSchema = z.object({ header: headerSchema, kvs: z.array(keyValueSchema).optional(), more: z.boolean().optional() }).passthrough();
const timeToLiveSchema = z.object({ header: headerSchema, ID: int64, TTL: optionalInt64, grantedTTL: optionalInt64 }).passthrough();
const statusSchema = z.object({ header: headerSchema, version: z.string(), leader: optionalInt64, dbSize: optionalInt64 }).passthrough();

/** A key as Baton reads it: text, with its lease and revisions. */
export type EtcdKeyValue = { key: string; value: string; createRevision: number; modRevision: number; leaseId: string };

export function toBase64(text: string): string {
  return Buffer.from(text, "utf8").toString("base64");
}

function fromBase64(text: string | undefined): string {
  return text === undefined ? "" : Buffer.from(text, "base64").toString("utf8");
}

/** The end of the range of keys that start with `prefix` (etcd's clientv3.GetPrefixRangeEnd). */
export function prefixRangeEnd(prefix: string): Buffer {
  const end = Buffer.from(prefix, "utf8");
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i] = end[i]! + 1;
      return end.subarray(0, i + 1);
    }
  }
  // Only 0xff bytes: everything from the prefix on ("\0" means "to the end of the keyspace").
  return Buffer.from([0]);
}

export function decodeKeyValue(kv: z.output<typeof keyValueSchema>): EtcdKeyValue {
  return {
    key: fromBase64(kv.key),
    value: fromBase64(kv.value),
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
    leaseId: kv.lease,
  };
}

/** `answeredAt`: when the first page arrived, whose revision every page was read at. */
export type RangeRead = { kvs: EtcdKeyValue[]; revision: number; answeredAt: string; requests: number };

/**
 * Every key under `prefix` (or exactly `prefix` when `isExact`), page by page, all pages at the
 * revision of the first so that the read is one consistent snapshot.
 */
export async function readRange(transport: EtcdTransport, prefix: string, options: { isExact?: boolean; isKeysOnly?: boolean } = {}): Promise<RangeRead> {
  const rangeEnd = options.isExact ? undefined : prefixRangeEnd(prefix).toString("base64");
  const kvs: EtcdKeyValue[] = [];
  let key = toBase64(prefix);
  let revision: number | undefined;
  let answeredAt = "";
  let requests = 0;
  for (;;) {
    const answer = await transport.call(
      "kv/range",
      { key, range_end: rangeEnd, limit: options.isExact ? undefined : RANGE_PAGE_SIZE, revision, keys_only: options.isKeysOnly ?? false },
      rangeSchema,
    );
    requests += 1;
    // Every page is read at the first page's revision: the state shown is as of that answer.
    if (revision === undefined) answeredAt = answer.answeredAt;
    revision ??= Number(answer.data.header.revision);
    const page = (answer.data.kvs ?? []).map(decodeKeyValue);
    // Pages after the first start at the last key seen, which they repeat.
    kvs.push(...(kvs.length > 0 && page[0]?.key === kvs.at(-1)!.key ? page.slice(1) : page));
    if (!answer.data.more || page.length === 0) break;
    key = toBase64(page.at(-1)!.key);
  }
  return { kvs, revision: revision!, answeredAt, requests };
}

export type LeaseTimeToLive = {
  leaseId: string;
  /** Whole seconds left (etcd truncates); -1 when the lease no longer exists. */
  ttlSeconds: number;
  grantedTtlSeconds: number;
  answeredAt: string;
};

export async function readLeaseTimeToLive(transport: EtcdTransport, leaseId: string): Promise<LeaseTimeToLive> {
  const answer = await transport.call("lease/timetolive", { ID: leaseId }, timeToLiveSchema);
  return { leaseId, ttlSeconds: Number(answer.data.TTL), grantedTtlSeconds: Number(answer.data.grantedTTL), answeredAt: answer.answeredAt };
}

export async function readStatus(
  transport: EtcdTransport,
  options: { timeoutMs?: number } = {},
): Promise<{ version: string; revision: number; member: string }> {
  const answer = await transport.call("maintenance/status", {}, statusSchema, options);
  return { version: answer.data.version, revision: Number(answer.data.header.revision), member: answer.member };
}

/** The current revision, from a range of at most one key (cheap, and allowed to a read-only user). */
export async function readCurrentRevision(transport: EtcdTransport, prefix: string): Promise<number> {
  const answer = await transport.call(
    "kv/range",
    { key: toBase64(prefix), range_end: prefixRangeEnd(prefix).toString("base64"), limit: 1, count_only: true },
    rangeSchema,
  );
  return Number(answer.data.header.revision);
}

const watchEventSchema = z.object({ type: z.enum(["PUT", "DELETE"]).optional(), kv: keyValueSchema }).passthrough();

/** One message of a watch stream: a result, or (the gateway's way of ending a stream badly) an error. */
export const watchResponseSchema = z
  .object({
    result: z
      .object({
        header: headerSchema,
        created: z.boolean().optional(),
        canceled: z.boolean().optional(),
        compact_revision: optionalInt64,
        cancel_reason: z.string().optional(),
        events: z.array(watchEventSchema).optional(),
      })
      .passthrough()
      .optional(),
    error: z.object({ message: z.string().optional(), grpc_code: z.number().optional(), http_code: z.number().optional() }).passthrough().optional(),
  })
  .passthrough();

export type WatchResponse = z.output<typeof watchResponseSchema>;

export type WatchEvent = { type: "PUT" | "DELETE"; kv: EtcdKeyValue };

export function toWatchEvents(events: z.output<typeof watchEventSchema>[] | undefined): WatchEvent[] {
  return (events ?? []).map((event) => ({ type: event.type ?? "PUT", kv: decodeKeyValue(event.kv) }));
}
