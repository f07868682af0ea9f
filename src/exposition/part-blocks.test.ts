import { describe, expect, it } from 'vitest';
import { KeysApart, type MetricPart } from './part-blocks.js';

const part = (key: string | undefined): MetricPart => ({ text: '', bodies: undefined, series: 1, listed: -1, cut: false, block: undefined, key });
const parts = (...keys: (string | undefined)[]) => keys.map(part);

describe('KeysApart', () => {
  it('says whether every part has a key and no two share one', () => {
    const apart = new KeysApart();
    expect(apart.check(parts('a', 'b', 'c'))).toBe(true);
    expect(apart.check(parts('a', 'b', 'a'))).toBe(false);
    expect(apart.check(parts('a', undefined, 'c'))).toBe(false);
    expect(apart.check([])).toBe(true);
  });

  it('judges each list on its own: keys an earlier list had, or stopped at, do not count', () => {
    const apart = new KeysApart();
    // Stops at the second "x": "y" and "z" were never looked at.
    expect(apart.check(parts('x', 'x', 'y', 'z'))).toBe(false);
    expect(apart.check(parts('z', 'y', 'x'))).toBe(true);
    expect(apart.check(parts('z', 'y', 'x'))).toBe(true);
    expect(apart.check(parts('y', 'z', 'y'))).toBe(false);
  });

  it('stays right across many lists of keys that come and go (nodes renamed over reloads)', () => {
    const apart = new KeysApart();
    for (let round = 0; round < 50; round++) {
      const keys = Array.from({ length: 300 }, (_, i) => `node-${round}-${i}`);
      expect(apart.check(parts(...keys))).toBe(true);
      expect(apart.check(parts(...keys, `node-${round}-7`))).toBe(false);
      expect(apart.check(parts('small', 'list'))).toBe(true);
    }
  });
});
