// The partition a message came from, read from its WebSocket message id: base64 of Pulsar's
// MessageIdData protobuf (ledgerId = 1, entryId = 2, partition = 3, batch_index = 4).
// Returns -1 for a non-partitioned topic (or an id without the field).

function readVarint(bytes: Uint8Array, start: number): { value: number; next: number } {
  let value = 0;
  let shift = 0;
  let i = start;
  while (i < bytes.length) {
    const byte = bytes[i++]!;
    // Partition indexes are small; larger fields (ledger ids) are skipped, not summed exactly.
    if (shift < 53) value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return { value, next: i };
    shift += 7;
  }
  throw new Error("truncated varint");
}

export function readMessagePartition(messageId: string): number {
  const bytes = Buffer.from(messageId, "base64");
  let i = 0;
  while (i < bytes.length) {
    const tag = readVarint(bytes, i);
    i = tag.next;
    const field = Math.floor(tag.value / 8);
    const wireType = tag.value % 8;
    if (wireType === 0) {
      const value = readVarint(bytes, i);
      i = value.next;
      // int32 -1 is sent as a 10-byte varint: anything that large is "no partition".
      if (field === 3) return value.value > 2 ** 31 ? -1 : value.value;
    } else if (wireType === 2) {
      const length = readVarint(bytes, i);
      i = length.next + length.value;
    } else {
      return -1;
    }
  }
  return -1;
}
