// The Redis Cluster hash slot of a key (CRC16-XMODEM of the key, or of its {hash tag}, mod
// 16384), as the cluster specification defines it: which master holds the key.

const SLOT_COUNT = 16_384;

const CRC16_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[byte] = crc;
  }
  return table;
})();

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ byte) & 0xff]!;
  return crc;
}

/** The part of the key that is hashed: the first non-empty {...} section, else the whole key. */
function hashedPart(key: Buffer): Buffer {
  const open = key.indexOf("{");
  if (open === -1) return key;
  const close = key.indexOf("}", open + 1);
  if (close === -1 || close === open + 1) return key;
  return key.subarray(open + 1, close);
}

export function keySlot(key: string): number {
  return crc16(hashedPart(Buffer.from(key, "utf8"))) % SLOT_COUNT;
}
