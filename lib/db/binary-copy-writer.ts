// Rows in PostgreSQL's binary COPY format (the "COPY ... FROM STDIN (FORMAT binary)" data), built
// in one growing buffer: a header, then per row a field count and each field as a length and
// its bytes in the type's binary send format, then a trailer. No text is parsed or escaped on
// either side: the server takes integers, bytes and timestamps as they are.
// https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.4

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");
/** PostgreSQL's epoch, 2000-01-01 UTC, in Unix epoch milliseconds. */
const POSTGRES_EPOCH_MS = 946_684_800_000;
/** Strings up to this many UTF-16 units are copied in a loop when ASCII (see writeUtf8). */
const SHORT_STRING = 64;
/** jsonb's binary format: a version byte, then the JSON text. */
const JSONB_VERSION = 1;
const NULL_LENGTH = -1;

/** The value of a lowercase or uppercase hex digit's character code. */
function hexValue(code: number): number {
  return code <= 57 ? code - 48 : (code | 0x20) - 87;
}

export class BinaryCopyWriter {
  private buffer: Buffer;
  private at = 0;

  constructor(expectedBytes = 64 * 1024) {
    this.buffer = Buffer.allocUnsafe(Math.max(expectedBytes, SIGNATURE.length + 8));
    this.at = SIGNATURE.copy(this.buffer, 0);
    this.at = this.buffer.writeInt32BE(0, this.at); // flags: no OIDs
    this.at = this.buffer.writeInt32BE(0, this.at); // header extension: none
  }

  private reserve(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
  }

  beginRow(fieldCount: number): this {
    this.reserve(2);
    this.at = this.buffer.writeInt16BE(fieldCount, this.at);
    return this;
  }

  null(): this {
    this.reserve(4);
    this.at = this.buffer.writeInt32BE(NULL_LENGTH, this.at);
    return this;
  }

  /**
   * UTF-8 of `value` at `at` (room reserved); returns the bytes written. Short ASCII strings, most
   * of an event's, are copied in a loop: cheaper than a call into Buffer.write for each.
   */
  private writeUtf8(value: string, at: number): number {
    if (value.length <= SHORT_STRING) {
      const buffer = this.buffer;
      for (let i = 0; i < value.length; i++) {
        const code = value.charCodeAt(i);
        if (code >= 0x80) return buffer.write(value, at, "utf8");
        buffer[at + i] = code;
      }
      return value.length;
    }
    return this.buffer.write(value, at, "utf8");
  }

  /** text, varchar, and an enum's label: UTF-8. */
  text(value: string | null): this {
    if (value === null) return this.null();
    // UTF-8 takes at most 3 bytes per UTF-16 unit; written in place, the length filled in after.
    this.reserve(4 + value.length * 3);
    const written = this.writeUtf8(value, this.at + 4);
    this.buffer.writeInt32BE(written, this.at);
    this.at += 4 + written;
    return this;
  }

  /** jsonb from its JSON text. */
  jsonb(json: string | null): this {
    if (json === null) return this.null();
    this.reserve(5 + json.length * 3);
    const written = this.writeUtf8(json, this.at + 5);
    this.buffer.writeInt32BE(written + 1, this.at);
    this.buffer[this.at + 4] = JSONB_VERSION;
    this.at += 5 + written;
    return this;
  }

  bool(value: boolean): this {
    this.reserve(5);
    this.at = this.buffer.writeInt32BE(1, this.at);
    this.at = this.buffer.writeUInt8(value ? 1 : 0, this.at);
    return this;
  }

  int4(value: number | null): this {
    if (value === null) return this.null();
    this.reserve(8);
    this.at = this.buffer.writeInt32BE(4, this.at);
    this.at = this.buffer.writeInt32BE(value, this.at);
    return this;
  }

  /** bytea from hex digits (an even number of valid ones: the caller's to ensure). */
  byteaHex(hex: string | null): this {
    if (hex === null) return this.null();
    const bytes = hex.length >> 1;
    this.reserve(4 + bytes);
    const buffer = this.buffer;
    let at = buffer.writeInt32BE(bytes, this.at);
    for (let i = 0; i < hex.length; i += 2) buffer[at++] = (hexValue(hex.charCodeAt(i)) << 4) | hexValue(hex.charCodeAt(i + 1));
    this.at = at;
    return this;
  }

  /** timestamptz (and timestamp: the same bytes) from epoch milliseconds, fractions kept to the microsecond. */
  timestampMs(epochMs: number): this {
    this.reserve(12);
    // An int64 as two halves: microseconds since 2000 stay well within a double's exact integers.
    const micros = Math.round((epochMs - POSTGRES_EPOCH_MS) * 1000);
    const high = Math.floor(micros / 2 ** 32);
    this.at = this.buffer.writeInt32BE(8, this.at);
    this.at = this.buffer.writeInt32BE(high, this.at);
    this.at = this.buffer.writeUInt32BE(micros - high * 2 ** 32, this.at);
    return this;
  }

  /** The data with its trailer; the writer is done. */
  finish(): Buffer {
    this.reserve(2);
    this.at = this.buffer.writeInt16BE(-1, this.at);
    return this.buffer.subarray(0, this.at);
  }
}
