import type { AttributeValue } from "@aws-sdk/client-dynamodb";

// One item of a dynamodb-lock-client table, as Baton reads it. The client writes `ownerName`,
// `leaseDuration` (milliseconds, as a string), `recordVersionNumber` (a new UUID on every
// acquire and heartbeat), `isReleased` ("1" once released without deleting the item) and
// `data` (binary, optional). Pure.

export const LOCK_ATTRIBUTES = ["ownerName", "leaseDuration", "recordVersionNumber", "isReleased", "data"] as const;

export type LockItem = {
  /** The partition key's value, and the sort key's when the table has one. */
  partitionKey: string;
  sortKey: string | null;
  /** Baton's name for the lock: the partition key, or "<partition key>/<sort key>". */
  resourceKey: string;
  ownerName: string | null;
  leaseDurationMs: number | null;
  recordVersionNumber: string | null;
  isReleased: boolean;
  data: Uint8Array | null;
};

function textOf(value: AttributeValue | undefined): string | null {
  if (value === undefined) return null;
  if ("S" in value && value.S !== undefined) return value.S;
  if ("N" in value && value.N !== undefined) return value.N;
  if ("B" in value && value.B !== undefined) return Buffer.from(value.B).toString("base64");
  return null;
}

export function resourceKeyOf(partitionKey: string, sortKey: string | null): string {
  return sortKey === null ? partitionKey : `${partitionKey}/${sortKey}`;
}

/** An item as a lock, or a one-line reason why it is none (no partition key). */
export function toLockItem(item: Record<string, AttributeValue>, keys: { partitionKeyName: string; sortKeyName?: string }): LockItem | string {
  const partitionKey = textOf(item[keys.partitionKeyName]);
  if (partitionKey === null) return `an item has no "${keys.partitionKeyName}" attribute: is partitionKeyName right?`;
  const sortKey = keys.sortKeyName === undefined ? null : textOf(item[keys.sortKeyName]);
  const lease = textOf(item.leaseDuration);
  const leaseDurationMs = lease !== null && /^\d+$/.test(lease) ? Number(lease) : null;
  const released = item.isReleased;
  return {
    partitionKey,
    sortKey,
    resourceKey: resourceKeyOf(partitionKey, sortKey),
    ownerName: textOf(item.ownerName),
    leaseDurationMs,
    recordVersionNumber: textOf(item.recordVersionNumber),
    // The Java client writes the string "1"; a BOOL true (other ports of the client) means the same.
    isReleased: released !== undefined && (released.S === "1" || released.BOOL === true),
    data: item.data !== undefined && "B" in item.data && item.data.B !== undefined ? item.data.B : null,
  };
}
