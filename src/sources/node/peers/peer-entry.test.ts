import { describe, expect, it } from 'vitest';
import { peerSchema } from './index.js';
import { interned, readPeerEntry, readPeerEntryBytes, type PeerEntryRead } from './peer-entry.js';
import { createPrng, generatePeers } from '../../../../test/fakes/fake-data.js';

/** The same keys in the same order, each with the same value (arrays by content, not identity). */
function sameEntry(a: object, b: object): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.join() !== kb.join()) return false;
  return ka.every((k) => JSON.stringify((a as Record<string, unknown>)[k]) === JSON.stringify((b as Record<string, unknown>)[k]));
}

const ODD: unknown[] = [
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

/** 200 entries as info.peers sends them (src/demo/rpc-info.ts peerWire: the percentage a decimal string, other keys zod ignores), each followed by 20 variants with one key removed or given an odd value. */
function peerVariants(): { wire: Record<string, unknown>[]; variants: Record<string, unknown>[] } {
  const rng = createPrng(27);
  const wire: Record<string, unknown>[] = generatePeers(200, 3, []).map((p) => ({
    ip: p.ip,
    nodeID: p.nodeId,
    version: p.version,
    upgradeTime: p.upgradeTime,
    lastSent: p.lastSent.toISOString(),
    observedUptime: String(p.observedUptime),
    trackedSubnets: p.trackedSubnets,
    benched: [...p.benched],
  }));
  const keys = ['nodeID', 'version', 'benched', 'observedUptime', 'upgradeTime'];
  const variants: Record<string, unknown>[] = [];
  for (const base of wire) {
    variants.push(base);
    for (let n = 0; n < 20; n++) {
      const v: Record<string, unknown> = { ...base };
      const k = keys[Math.floor(rng() * keys.length)] as string;
      if (rng() < 0.15) delete v[k];
      else v[k] = ODD[Math.floor(rng() * ODD.length)];
      variants.push(v);
    }
  }
  return { wire, variants };
}

describe('readPeerEntry', () => {
  it('gives what zod gives for every entry it accepts (zod decides the rest)', () => {
    const { wire, variants } = peerVariants();
    let accepted = 0;
    for (const v of variants) {
      const fast = readPeerEntry(v);
      const z = peerSchema.safeParse(v);
      if (fast === undefined) continue;
      accepted++;
      expect(z.success, JSON.stringify(v)).toBe(true);
      if (z.success) expect(sameEntry(fast, z.data), JSON.stringify(v)).toBe(true);
    }
    expect(variants.length).toBe(200 * 21);
    // The generated entries themselves are all read by the fast path.
    for (const p of wire) expect(readPeerEntry(p)).toBeDefined();
    expect(accepted).toBeGreaterThan(200);
    for (const bad of [null, [], 'x', Object.create(null) as object]) expect(readPeerEntry(bad)).toBeUndefined();
  });
});

/** readPeerEntryBytes of a text, the entry alone in its buffer or amid other bytes (as in a body). */
function readText(text: string, amid: boolean): PeerEntryRead | undefined {
  if (!amid) return readPeerEntryBytes(Buffer.from(text, 'utf8'), 0, Buffer.byteLength(text));
  const before = Buffer.from('{"peers":[{"nodeID":"x","version":"y"},', 'utf8');
  const body = Buffer.concat([before, Buffer.from(text, 'utf8'), Buffer.from(']}')]);
  return readPeerEntryBytes(body, before.length, body.length - 2);
}

describe('readPeerEntryBytes', () => {
  it('gives exactly what readPeerEntry gives for the parsed text, whenever it gives anything', () => {
    const { wire, variants } = peerVariants();
    // Texts as a node may write them: compact or spaced, escapes and non-ASCII in the strings read, keys twice.
    const texts: string[] = [];
    for (const v of variants) {
      const t = JSON.stringify(v);
      texts.push(t, JSON.stringify(v, null, 2));
      texts.push(t.replace('"nodeID":"NodeID-', '"nodeID":"\\u004eodeID-'), t.replace('avalanchego/', 'avalanchégo/'));
      texts.push(t.replace('{', '{"nodeID":"NodeID-dup",'), t.replace('{', '{"benched":["P"],'), t.replace('{', '{"x":"\\"}{\\\\",'));
      // Not JSON: each must be left to the full parse, which refuses it.
      texts.push(t.slice(0, -1), `${t.slice(0, -1)},}`, t.replace(':', ''), t.replace('"ip":"', '"ip":"\t'), t.replace(/\d/, '\\'));
    }
    let read = 0;
    for (const [n, t] of texts.entries()) {
      const bytes = readText(t, n % 2 === 1);
      let parsed: unknown;
      try {
        parsed = JSON.parse(t);
      } catch {
        expect(bytes, t).toBeUndefined();
        continue;
      }
      if (bytes === undefined) continue;
      read++;
      const slow = readPeerEntry(parsed);
      expect(slow, t).toBeDefined();
      expect(bytes, t).toStrictEqual(slow);
      expect(sameEntry(bytes, slow as object), t).toBe(true);
    }
    expect(read).toBeGreaterThan(1_000);
    // What a node sends (every generated entry, benched nowhere or not) is read from its bytes but for non-empty benched lists.
    for (const p of wire) {
      const t = JSON.stringify(p);
      if ((p['benched'] as unknown[]).length === 0) expect(readText(t, false), t).toStrictEqual(readPeerEntry(p));
    }
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
