import "server-only";

// Event ids and trace ids are stored as bytes (exclusivity_event.event_id and .trace_id are
// bytea): a tag byte, then
//   0x02 + 16 bytes  a canonical UUID (lowercase, hyphenated: what the client library sends),
//   0x01 + n bytes   an even-length run of lowercase hex digits (a W3C trace id: 32 digits),
//   0x00 + UTF-8     any other text.
// A UUID takes 17 bytes instead of 36 characters, in the row and in the primary key: with a W3C
// trace id packed too, the store takes 307 bytes an event instead of 358 (docs/event-store-at-scale.md). Only forms that come back exactly
// are packed (an uppercase UUID is text), so every id reads back as it was sent.
// The same rules in SQL: baton_compact_id(text) and baton_id_text(bytea), defined by
// prisma/migrations/20261127120000_compact_ids; tests/integration/db/compact-id.test.ts checks
// that both sides agree.

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const LOWERCASE_HEX_BYTES = /^(?:[0-9a-f]{2})+$/;

const UUID_TAG = "02";
const HEX_TAG = "01";
const TEXT_TAG = "00";

/** The stored bytes of an id, as hex digits (the ingest statement decodes them with decode(…, 'hex')). */
export function compactIdHex(id: string): string {
  if (id.length === 36 && CANONICAL_UUID.test(id)) return UUID_TAG + id.slice(0, 8) + id.slice(9, 13) + id.slice(14, 18) + id.slice(19, 23) + id.slice(24);
  if (LOWERCASE_HEX_BYTES.test(id)) return HEX_TAG + id;
  return TEXT_TAG + Buffer.from(id, "utf8").toString("hex");
}

/** The stored bytes of an id. */
export function compactId(id: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(compactIdHex(id), "hex"));
}

/** The id that was sent, from its stored bytes. Throws on bytes no id encodes to. */
export function idText(stored: Uint8Array): string {
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  const body = bytes.subarray(1);
  switch (bytes[0]) {
    case 0x02: {
      if (body.length !== 16) break;
      const hex = body.toString("hex");
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    }
    case 0x01:
      if (body.length === 0) break;
      return body.toString("hex");
    case 0x00:
      return body.toString("utf8");
  }
  throw new RangeError(`not a stored id: ${bytes.toString("hex")}`);
}
