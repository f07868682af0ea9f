import { describe, expect, it } from 'vitest';
import { crc32, gunzipSync, gzipSync } from 'node:zlib';
import { crc32Combine, crcShift, gzipOfSegments, sealSegment } from './gzip-segments.js';

/** Lines of the text format, `n` of them, with values that compress as real ones do (a few digits, some repeated). */
function lines(metric: string, n: number): Buffer {
  let out = '';
  for (let i = 0; i < n; i++) out += `${metric}{node="node-${i % 7}",node_id="NodeID-${i}"} ${(i * 7919) % 1000}\n`;
  return Buffer.from(out, 'utf8');
}

describe('gzip segments', () => {
  it('makes one gzip member of segments compressed apart, which gunzips to their text in order', () => {
    const pieces = [lines('a', 300), Buffer.alloc(0), lines('b', 1), Buffer.from('# HELP x ünïcödé 日本\n', 'utf8'), lines('c', 2000)];
    const gz = gzipOfSegments(pieces.map(sealSegment));
    expect(gunzipSync(gz).equals(Buffer.concat(pieces))).toBe(true);
    // One member: the header once, then deflate data to the end.
    expect(gz.subarray(0, 3)).toEqual(Buffer.from([0x1f, 0x8b, 0x08]));
    expect(gz.indexOf(Buffer.from([0x1f, 0x8b, 0x08]), 3)).toBe(-1);
    // Its size stays near one compression of the whole (each segment loses only the history of those before).
    expect(gz.length).toBeLessThan(gzipSync(Buffer.concat(pieces), { level: 1 }).length * 1.25);
  });

  it('reuses a segment in any later member: the same deflate data after other segments', () => {
    const kept = sealSegment(lines('kept', 500));
    const first = [sealSegment(lines('x', 10)), kept];
    const second = [sealSegment(lines('y', 99)), kept, sealSegment(lines('z', 1))];
    expect(gunzipSync(gzipOfSegments(first)).equals(Buffer.concat([lines('x', 10), lines('kept', 500)]))).toBe(true);
    expect(gunzipSync(gzipOfSegments(second)).equals(Buffer.concat([lines('y', 99), lines('kept', 500), lines('z', 1)]))).toBe(true);
  });

  it('combines CRC-32s as zlib computes the CRC of the whole', () => {
    const parts = [Buffer.from('a'), Buffer.alloc(0), lines('m', 1234), Buffer.from([0, 255, 128]), lines('n', 5)];
    let crc = 0;
    for (const p of parts) crc = crc32Combine(crc, crc32(p), crcShift(p.length));
    expect(crc).toBe(crc32(Buffer.concat(parts)));
  });

  it('keeps a segment in memory of its own size, not in the slack of a larger buffer', () => {
    for (const text of [Buffer.from('# HELP a b\n'), lines('small', 20), lines('large', 5000)]) {
      const seg = sealSegment(text);
      expect(seg.deflated.buffer.byteLength).toBe(seg.deflated.length);
      expect(gunzipSync(gzipOfSegments([seg])).equals(text)).toBe(true);
    }
  });

  it('writes the gzip of nothing as an empty member', () => {
    expect(gunzipSync(gzipOfSegments([])).length).toBe(0);
  });
});
