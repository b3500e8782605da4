import { describe, expect, it } from "vitest";

import { BinaryCopyWriter } from "@/lib/db/binary-copy-writer";

// PostgreSQL's binary COPY format, read back field by field: what the server would take.
// (tests/integration/ingest/* send it to a real server: this pins the bytes of each type.)

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

/** The rows of binary COPY data, each a list of fields (null for NULL). */
function readRows(data: Buffer): (Buffer | null)[][] {
  expect(data.subarray(0, 11)).toEqual(SIGNATURE);
  expect(data.readInt32BE(11)).toBe(0);
  expect(data.readInt32BE(15)).toBe(0);
  let at = 19;
  const rows: (Buffer | null)[][] = [];
  for (;;) {
    const fields = data.readInt16BE(at);
    at += 2;
    if (fields === -1) break;
    const row: (Buffer | null)[] = [];
    for (let f = 0; f < fields; f++) {
      const length = data.readInt32BE(at);
      at += 4;
      if (length === -1) row.push(null);
      else {
        row.push(data.subarray(at, at + length));
        at += length;
      }
    }
    rows.push(row);
  }
  expect(at).toBe(data.length);
  return rows;
}

/** timestamptz's binary value as epoch milliseconds. */
function readTimestampMs(field: Buffer): number {
  return Number(field.readBigInt64BE(0) / 1000n) + Date.UTC(2000, 0, 1);
}

describe("BinaryCopyWriter", () => {
  it("writes each type as PostgreSQL's binary send format, NULLs as length -1", () => {
    const long = "x".repeat(200);
    const data = new BinaryCopyWriter(16)
      .beginRow(9)
      .text("plain")
      .text("clé 🔑 日本")
      .text(long)
      .text(null)
      .int4(-42)
      .bool(true)
      .byteaHex("02ABcdef")
      .jsonb('{"k":"värde"}')
      .timestampMs(Date.UTC(2026, 11, 7, 5, 30, 0, 123))
      .finish();
    const [row, ...rest] = readRows(data);
    expect(rest).toEqual([]);
    expect(row![0]!.toString("utf8")).toBe("plain");
    expect(row![1]!.toString("utf8")).toBe("clé 🔑 日本");
    expect(row![2]!.toString("utf8")).toBe(long);
    expect(row![3]).toBeNull();
    expect(row![4]!.readInt32BE(0)).toBe(-42);
    expect([...row![5]!]).toEqual([1]);
    expect(row![6]!.toString("hex")).toBe("02abcdef");
    expect(row![7]![0]).toBe(1);
    expect(row![7]!.subarray(1).toString("utf8")).toBe('{"k":"värde"}');
    expect(readTimestampMs(row![8]!)).toBe(Date.UTC(2026, 11, 7, 5, 30, 0, 123));
  });

  it("writes instants on both sides of PostgreSQL's epoch and of 2^32 microseconds to the millisecond", () => {
    const instants = [Date.UTC(1999, 11, 31, 23, 59, 59, 999), Date.UTC(2000, 0, 1), Date.UTC(2000, 0, 1, 1, 11, 34, 968), Date.UTC(2100, 0, 1, 0, 0, 0, 1)];
    const writer = new BinaryCopyWriter();
    for (const ms of instants) writer.beginRow(1).timestampMs(ms);
    expect(readRows(writer.finish()).map((row) => readTimestampMs(row[0]!))).toEqual(instants);
  });

  it("grows past its first guess, many rows later, losing nothing", () => {
    const writer = new BinaryCopyWriter(8);
    for (let i = 0; i < 5_000; i++) writer.beginRow(2).int4(i).text(`row-${i}-ü`);
    const rows = readRows(writer.finish());
    expect(rows).toHaveLength(5_000);
    expect(rows[4_999]![0]!.readInt32BE(0)).toBe(4_999);
    expect(rows[4_999]![1]!.toString("utf8")).toBe("row-4999-ü");
  });
});
