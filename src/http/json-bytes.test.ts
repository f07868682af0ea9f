import { describe, expect, it } from 'vitest';
import { MAX_FIELDS, objectFields, skipSpace, valueEnd } from './json-bytes.js';
import { createPrng } from '../../test/fakes/fake-data.js';
import { randomJsonValue } from '../../test/helpers/random-json.js';

/** Whether the bytes are one JSON value (whitespace around it allowed), by valueEnd. */
function oneValue(b: Buffer): boolean {
  const s = skipSpace(b, 0, b.length);
  const e = valueEnd(b, s, b.length);
  return e >= 0 && skipSpace(b, e, b.length) === b.length;
}

/** Whether JSON.parse takes the bytes (decoded as a body is: UTF-8). */
function parses(b: Buffer): boolean {
  try {
    JSON.parse(b.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

/** Bytes a mutation puts in: JSON's structure, escapes, number parts, literals' letters, control and non-ASCII bytes. */
const ALPHABET = [...'{}[],:"\\/0123456789-+.eEtrufalsn ubfx'].map((c) => c.charCodeAt(0)).concat([0x09, 0x0a, 0x0d, 0x01, 0x1f, 0x7f, 0x80, 0xc3, 0xa9, 0xff]);

/** `b` with one to three random edits: a byte removed, put in or replaced. */
function mutate(rng: () => number, b: Buffer): Buffer {
  const out = [...b];
  const edits = 1 + Math.floor(rng() * 3);
  for (let k = 0; k < edits; k++) {
    const at = Math.floor(rng() * (out.length + 1));
    const byte = ALPHABET[Math.floor(rng() * ALPHABET.length)] as number;
    const r = rng();
    if (r < 0.35 && out.length > 0) out.splice(Math.min(at, out.length - 1), 1);
    else if (r < 0.7) out.splice(at, 0, byte);
    else if (out.length > 0) out[Math.min(at, out.length - 1)] = byte;
  }
  return Buffer.from(out);
}

describe('valueEnd', () => {
  it('takes exactly what JSON.parse takes, over random values and random damage to them', () => {
    const rng = createPrng(236);
    let valid = 0;
    let invalid = 0;
    for (let n = 0; n < 3_000; n++) {
      const v = randomJsonValue(rng, 0);
      const text = JSON.stringify(v, null, rng() < 0.3 ? 1 : undefined);
      const b = Buffer.from(rng() < 0.2 ? ` \n${text}\t ` : text, 'utf8');
      expect(oneValue(b), text).toBe(true);
      valid++;
      for (let m = 0; m < 5; m++) {
        const bad = mutate(rng, b);
        const ok = parses(bad);
        expect(oneValue(bad), JSON.stringify(bad.toString('latin1'))).toBe(ok);
        if (!ok) invalid++;
      }
    }
    expect(valid).toBe(3_000);
    // The damage mostly breaks the text: both sides of the equivalence are exercised.
    expect(invalid).toBeGreaterThan(5_000);
  });

  it('follows the grammar of numbers, strings and literals', () => {
    const good = ['0', '-0', '1.5e3', '1E-2', '-12.50e+07', '"\\u00e9\\n\\/"', '"\x7f"', '"é"', 'true', 'false', 'null', '[]', '{}', '[ 1 , [ ] ]'];
    const bad = [
      '01',
      '1.',
      '.5',
      '1e',
      '1e+',
      '-',
      '--1',
      '+1',
      '0x1',
      'Infinity',
      'NaN',
      '"\\u12"',
      '"\\u123g"',
      '"\\x"',
      '"a\tb"',
      '"open',
      'tru',
      'nul',
      '[1,]',
      '{"a":1,}',
      '{"a"}',
      '{1:2}',
      "'x'",
      '',
    ];
    for (const t of good) expect(oneValue(Buffer.from(t)), t).toBe(true);
    for (const t of bad) expect(oneValue(Buffer.from(t)), t).toBe(false);
  });

  it('refuses nesting past MAX_JSON_DEPTH and never reads past the end it is given', () => {
    expect(oneValue(Buffer.from('['.repeat(32) + ']'.repeat(32)))).toBe(true);
    expect(oneValue(Buffer.from('['.repeat(33) + ']'.repeat(33)))).toBe(false);
    // The value ends where the caller says, even when the bytes after would complete it.
    const b = Buffer.from('{"a":[1,2]}');
    expect(valueEnd(b, 0, b.length - 1)).toBe(-1);
    expect(valueEnd(b, 5, b.length)).toBe(10);
  });
});

describe('objectFields', () => {
  it('gives each field of an object as the offsets of its key and value, in order, in one reused array', () => {
    const rng = createPrng(27);
    const fields: number[] = [];
    for (let n = 0; n < 500; n++) {
      const o: Record<string, unknown> = { nodeID: 'NodeID-x', n, inner: randomJsonValue(rng, 1), last: randomJsonValue(rng, 2) };
      const b = Buffer.from(` ${JSON.stringify(o, null, n % 2)} `, 'utf8');
      const count = objectFields(b, 0, b.length, fields);
      expect(count).toBe(Object.keys(o).length);
      const got: [string, unknown][] = [];
      for (let f = 0; f < 4 * count; f += 4) {
        got.push([b.toString('utf8', fields[f], fields[f + 1]), JSON.parse(b.toString('utf8', fields[f + 2], fields[f + 3])) as unknown]);
      }
      expect(got).toEqual(Object.entries(o));
    }
  });

  it('refuses anything but one valid object, and keys with an escape', () => {
    const fields: number[] = [];
    for (const t of ['[]', '"x"', '{"a":1} {}', '{"a":1', '{"a" 1}', '{"\\u0061":1}', '{"a":1,}', '']) {
      expect(objectFields(Buffer.from(t), 0, t.length, fields), t).toBe(-1);
    }
    expect(objectFields(Buffer.from('{ }'), 0, 3, fields)).toBe(0);
  });

  it('refuses an object with more fields than its bound, without growing the array past it', () => {
    const fields: number[] = [];
    const many = (n: number) => Buffer.from(JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))));
    expect(objectFields(many(MAX_FIELDS), 0, many(MAX_FIELDS).length, fields)).toBe(MAX_FIELDS);
    const hostile = many(10_000);
    expect(objectFields(hostile, 0, hostile.length, fields)).toBe(-1);
    expect(fields.length).toBe(4 * MAX_FIELDS);
  });
});
