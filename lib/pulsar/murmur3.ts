// MurmurHash3 x86 32-bit, as Pulsar's org.apache.pulsar.common.util.Murmur3_32Hash computes it
// (seed 0, little-endian 4-byte blocks, the standard tail and finaliser), and the 31-bit value its
// makeHash returns. Pure and client-safe; docs/owner-rules.md cites the source lines.

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function rotateLeft(value: number, bits: number): number {
  return (value << bits) | (value >>> (32 - bits));
}

function mixK1(k1: number): number {
  return Math.imul(rotateLeft(Math.imul(k1, C1), 15), C2);
}

/** The unsigned 32-bit MurmurHash3 (x86_32) of the bytes. */
export function murmur3x86Hash32(bytes: Uint8Array, seed = 0): number {
  const length = bytes.length;
  const blockEnd = length - (length % 4);
  let h1 = seed | 0;
  for (let i = 0; i < blockEnd; i += 4) {
    const k1 = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    h1 ^= mixK1(k1);
    h1 = (Math.imul(rotateLeft(h1, 13), 5) + 0xe6546b64) | 0;
  }
  let tail = 0;
  for (let i = 0; i < length % 4; i++) tail ^= bytes[blockEnd + i]! << (i * 8);
  h1 ^= mixK1(tail);
  h1 ^= length;
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h1 = Math.imul(h1, 0xc2b2ae35);
  h1 ^= h1 >>> 16;
  return h1 >>> 0;
}

/** Pulsar's `Murmur3_32Hash.makeHash(bytes)`: the 32-bit hash with its sign bit cleared, 0..2^31-1. */
export function pulsarMurmur3Hash(bytes: Uint8Array): number {
  return murmur3x86Hash32(bytes) & 0x7fffffff;
}
