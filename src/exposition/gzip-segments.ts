import { constants, crc32, deflateRawSync } from 'node:zlib';

/**
 * A piece of text compressed on its own into raw deflate blocks that end on a
 * byte boundary and do not close the stream (a sync flush, not a finish), so
 * that segments compressed at different times can follow one another in one
 * deflate stream: none refers back into another's bytes. With each segment's
 * CRC-32 and length, a gzip member of any sequence of segments is written
 * without compressing, or even reading, their text again (as pigz does in
 * parallel). The exposition keeps a segment per block of series that did not
 * change, so a render's gzip compresses only what changed.
 */
export interface GzipSegment {
  /** Raw deflate data ending in a sync flush (an empty stored block): no final block. */
  readonly deflated: Buffer;
  /** CRC-32 of the uncompressed bytes. */
  readonly crc: number;
  /** Uncompressed length in bytes. */
  readonly length: number;
  /** x^(8·length) modulo the CRC polynomial: what combines a CRC before this segment with this segment's (see crc32Combine). */
  readonly shift: number;
}

/**
 * Level 1: a segment is compressed once and served many times; the fastest
 * level costs a fraction of the default's CPU for a few percent more bytes.
 */
const LEVEL = 1;

// CRC-32 (the gzip one, reflected polynomial 0xEDB88320) arithmetic modulo its polynomial, as zlib's crc32_combine does it.
const POLY = 0xedb88320;

/** a(x)·b(x) modulo the CRC polynomial, in the reflected bit order CRC-32 uses. */
function multModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** X2N[k] = x^(2^k) modulo the polynomial. */
const X2N: number[] = (() => {
  const table: number[] = [];
  let p = 0x40000000; // x^1
  table.push(p);
  for (let k = 1; k < 32; k++) table.push((p = multModP(p, p)));
  return table;
})();

/** x^(n·2^k) modulo the polynomial. */
function x2nModP(n: number, k: number): number {
  let p = 0x80000000; // x^0 = 1
  while (n > 0) {
    if (n & 1) p = multModP(X2N[k & 31] as number, p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}

/** The shift of a piece of `length` bytes (GzipSegment.shift). */
export function crcShift(length: number): number {
  return x2nModP(length, 3);
}

/** The CRC-32 of A followed by B, from A's CRC, B's CRC and B's shift (crcShift of B's length). */
export function crc32Combine(crcA: number, crcB: number, shiftB: number): number {
  return (multModP(shiftB, crcA) ^ crcB) >>> 0;
}

/**
 * `buf` in memory of its own size: zlib's sync output is a slice of its 16 KB
 * output chunk (or of Node's shared 8 KB pool), and a kept segment of a few
 * hundred bytes held the whole chunk (a 100-node fleet's blocks and headers:
 * 3.7 MB of array buffers for a few hundred KB of deflate data).
 */
function exact(buf: Buffer): Buffer {
  if (buf.byteOffset === 0 && buf.buffer.byteLength === buf.length) return buf;
  const own = Buffer.allocUnsafeSlow(buf.length);
  buf.copy(own);
  return own;
}

/** Compresses `bytes` into a segment of its own. */
export function sealSegment(bytes: Buffer): GzipSegment {
  return {
    deflated: exact(deflateRawSync(bytes, { level: LEVEL, finishFlush: constants.Z_SYNC_FLUSH })),
    crc: crc32(bytes),
    length: bytes.length,
    shift: crcShift(bytes.length),
  };
}

/** The gzip header (RFC 1952): deflate, no flags, no time, fastest compression (XFL 4), OS unknown. */
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x04, 0xff]);

/** A last deflate block that holds nothing: BFINAL set, fixed Huffman codes, end-of-block at once. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/** One gzip member of the segments' text, in order: their deflate data one after another, closed, with the CRC and length of the whole. */
export function gzipOfSegments(segments: readonly GzipSegment[]): Buffer {
  let crc = 0;
  let length = 0;
  let size = HEADER.length + FINAL_BLOCK.length + 8;
  for (const s of segments) {
    crc = crc32Combine(crc, s.crc, s.shift);
    length += s.length;
    size += s.deflated.length;
  }
  const out = Buffer.allocUnsafe(size);
  let at = HEADER.copy(out, 0);
  for (const s of segments) at += s.deflated.copy(out, at);
  at += FINAL_BLOCK.copy(out, at);
  at = out.writeUInt32LE(crc, at);
  // ISIZE is the length modulo 2^32.
  out.writeUInt32LE(length % 0x1_0000_0000, at);
  return out;
}
