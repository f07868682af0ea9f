import { describe, expect, it } from 'vitest';
import { peerSchema } from './index.js';
import { interned, readPeerEntry } from './peer-entry.js';
import { createPrng, generatePeers } from '../../../../test/fakes/fake-data.js';

/** The same keys in the same order, each with the same value (arrays by content, not identity). */
function sameEntry(a: object, b: object): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.join() !== kb.join()) return false;
  return ka.every((k) => JSON.stringify((a as Record<string, unknown>)[k]) === JSON.stringify((b as Record<string, unknown>)[k]));
}

describe('readPeerEntry', () => {
  it('gives what zod gives for every entry it accepts (zod decides the rest)', () => {
    const rng = createPrng(27);
    // As info.peers sends them (src/demo/rpc-info.ts peerWire): the percentage a decimal string, other keys zod ignores.
    const peers: Record<string, unknown>[] = generatePeers(200, 3, []).map((p) => ({
      ip: p.ip,
      nodeID: p.nodeId,
      version: p.version,
      upgradeTime: p.upgradeTime,
      lastSent: p.lastSent.toISOString(),
      observedUptime: String(p.observedUptime),
      trackedSubnets: p.trackedSubnets,
      benched: [...p.benched],
    }));
    const odd: unknown[] = [
      undefined,
      null,
      '',
      'x',
      0,
      -1,
      1.5,
      100,
      101,
      2 ** 53,
      2 ** 60,
      -0,
      '0',
      '100',
      '101',
      '0100',
      ' 5',
      '5 ',
      '٣',
      '1e2',
      '99.5',
      [],
      ['P'],
      ['P', 1],
      [null],
      {},
      true,
      1_700_000_000,
    ];
    const keys = ['nodeID', 'version', 'benched', 'observedUptime', 'upgradeTime'];
    let accepted = 0;
    let checked = 0;
    for (const base of peers) {
      const variants: Record<string, unknown>[] = [base];
      for (let n = 0; n < 20; n++) {
        const v: Record<string, unknown> = { ...base };
        const k = keys[Math.floor(rng() * keys.length)] as string;
        const r = rng();
        if (r < 0.15) delete v[k];
        else v[k] = odd[Math.floor(rng() * odd.length)];
        variants.push(v);
      }
      for (const v of variants) {
        checked++;
        const fast = readPeerEntry(v);
        const z = peerSchema.safeParse(v);
        if (fast === undefined) continue;
        accepted++;
        expect(z.success, JSON.stringify(v)).toBe(true);
        if (z.success) expect(sameEntry(fast, z.data), JSON.stringify(v)).toBe(true);
      }
    }
    expect(checked).toBe(200 * 21);
    // The generated entries themselves are all read by the fast path.
    for (const p of peers) expect(readPeerEntry(p)).toBeDefined();
    expect(accepted).toBeGreaterThan(200);
    for (const bad of [null, [], 'x', Object.create(null) as object]) expect(readPeerEntry(bad)).toBeUndefined();
  });
});

describe('interned', () => {
  it('gives back a string equal to the one asked for, before and after its table starts again', () => {
    // Well past the table's bound (16,384): every answer stays right across the restart.
    for (let i = 0; i < 40_000; i++) {
      const id = `NodeID-${i.toString(36)}`;
      expect(interned(`${id}`)).toBe(id);
      if (i % 1_000 === 0) expect(interned('avalanchego/1.13.2')).toBe('avalanchego/1.13.2');
    }
  });

  it('is what readPeerEntry keeps: the entry read equals the raw one', () => {
    const raw = { nodeID: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', version: 'avalanchego/1.13.2', observedUptime: '99' };
    expect(readPeerEntry(JSON.parse(JSON.stringify(raw)))).toEqual({ nodeID: raw.nodeID, version: raw.version, observedUptime: 99 });
  });
});
