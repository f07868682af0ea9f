import { describe, expect, it } from 'vitest';
import { KeysApart, MetricLists, type MetricPart } from './part-blocks.js';

const part = (key: string | undefined, key2?: string): MetricPart => ({
  text: '',
  bodies: undefined,
  series: 1,
  listed: 0,
  paired: 0,
  cut: false,
  block: undefined,
  key,
  key2,
});
const parts = (...keys: (string | undefined)[]) => keys.map((k) => part(k));

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

/** A part of metric `avax_x` with one series per node id, all under node "n". */
function validatorPart(...ids: string[]): MetricPart {
  const text = ids.map((id) => `avax_x{node="n",node_id="${id}"} 1\n`).join('');
  return { ...part('n', ids.length === 1 ? ids[0] : undefined), text, series: ids.length };
}

describe('MetricLists.relist', () => {
  it('writes parts apart by their pairs of keys whole, dropping their bodies, and sees a pair that comes twice', () => {
    const lists = new MetricLists();
    const [a, b, c] = [validatorPart('A'), validatorPart('B'), validatorPart('C')];
    expect(lists.relist(0, [a, b, c], 'avax_x')).toBe(true);
    expect([a, b, c].map((p) => p.bodies)).toEqual([undefined, undefined, undefined]);
    // B's entry changed: a new part with the same pair, the old one gone.
    const b2 = validatorPart('B');
    expect(lists.relist(0, [a, b2, c], 'avax_x')).toBe(true);
    // A second part with A's pair while A stays: the same series twice, so not whole.
    const a2 = validatorPart('A');
    expect(lists.relist(0, [a, b2, c, a2], 'avax_x')).toBe(false);
    // A gone again: apart.
    expect(lists.relist(0, [b2, c, a2], 'avax_x')).toBe(true);
    // The same part listed twice.
    expect(lists.relist(0, [b2, c, b2], 'avax_x')).toBe(false);
  });

  it('counts the series of parts that are not apart by pairs (one of them holds several node ids)', () => {
    const lists = new MetricLists();
    const many = validatorPart('A', 'B');
    const b = validatorPart('B');
    const c = validatorPart('C');
    // "many" has no second key of its own, and shares B's series with b.
    expect(lists.relist(1, [many, c], 'avax_x')).toBe(true);
    expect(lists.relist(1, [many, b, c], 'avax_x')).toBe(false);
    expect(lists.relist(1, [many, c], 'avax_x')).toBe(true);
  });

  it('stays right over many renders in which a few entries change, new ids come and pairs clash', () => {
    const lists = new MetricLists();
    let parts = Array.from({ length: 200 }, (_, i) => validatorPart(`V${i}`));
    for (let render = 0; render < 100; render++) {
      // Two entries replaced by new parts of new ids (validators come and go), one by a new part of the same id.
      parts = parts.slice();
      parts[render % 200] = validatorPart(`V${render}-${200 + render}`);
      parts[(render * 7) % 200] = validatorPart(`W${render}`);
      const same = (render * 13) % 200;
      parts[same] = { ...validatorPart('x'), key2: parts[same]?.key2, text: (parts[same] as MetricPart).text };
      expect(lists.relist(2, parts, 'avax_x')).toBe(true);
      const clash = { ...validatorPart('y'), key2: parts[5]?.key2, text: (parts[5] as MetricPart).text };
      expect(lists.relist(2, [...parts, clash], 'avax_x')).toBe(false);
    }
  });

  it('takes the same second key under two first keys for two pairs', () => {
    const lists = new MetricLists();
    const line = (node: string, id: string) => ({ ...part(node, id), text: `avax_x{node="${node}",node_id="${id}"} 1\n` });
    // "n" twice: not apart by first keys alone, but every pair is its own.
    expect(lists.relist(3, [line('n', 'A'), line('n', 'B'), line('m', 'A')], 'avax_x')).toBe(true);
  });
});
