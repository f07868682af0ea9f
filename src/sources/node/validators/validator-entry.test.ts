import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FakeNode } from '../../../../test/fakes/fake-node.js';
import { FIXTURE_IDS, createPrng, type Prng } from '../../../../test/fakes/fake-data.js';
import { JsonRpcClient, type ArraySpec, type Deadline, type KnownItem } from '../../../http/json-rpc.js';
import { HttpTransport } from '../../../http/transport.js';
import { UpstreamError } from '../../../http/errors.js';
import { stakeEntrySchema } from '../peers/index.js';
import { readStakeEntry, readValidatorEntry } from './validator-entry.js';
import { toRecord, validatorSchema, type ValidatorRecord } from './index.js';
import { L1_SUBNET_ID, mainnetWorld } from '../../../../test/tools/bench/world.js';
import { FIXTURE_DIR, loadFixture } from '../../../../test/helpers/fixtures.js';

// The fast readers must give exactly what zod (and toRecord) give whenever
// they accept, and never accept what zod rejects; deferring is always safe.
// Entries come from the reference fixtures and from the fake node's wire,
// then are mutated at random (seeded, so a failure names its seed and case).

/** Same keys in the same order, each value the same by Object.is (so 0 is not -0, NaN is NaN, 1n is 1n). */
function sameObject(a: object, b: object): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return false;
  return ka.every((k) => Object.is((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** The validators of every getCurrentValidators exchange (and variant) in the reference fixtures. */
function fixtureEntries(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const files = readdirSync(FIXTURE_DIR).filter((f) => f.startsWith('node.platform.getCurrentValidators.'));
  expect(files).toEqual(expect.arrayContaining(['node.platform.getCurrentValidators.primary.json', 'node.platform.getCurrentValidators.l1.json']));
  for (const file of files) {
    const doc = loadFixture(file) as ReturnType<typeof loadFixture> & { variants?: { name: string }[] };
    for (const ex of [doc, ...(doc.variants ?? []).map((v) => loadFixture(file, v.name))]) {
      const result = (ex.response.body as { result?: { validators?: unknown } }).result;
      if (Array.isArray(result?.validators)) out.push(...(result.validators as Record<string, unknown>[]));
    }
  }
  return out;
}

const deadline = (): Deadline => ({ signal: new AbortController().signal, at: Date.now() + 30_000 });

async function rpcResult(url: string, path: string, method: string, params: unknown): Promise<unknown> {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

// ---------------------------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------------------------

const SCHEMA_KEYS = [
  'nodeID',
  'weight',
  'startTime',
  'endTime',
  'txID',
  'validationID',
  'balance',
  'potentialReward',
  'delegationFee',
  'uptime',
  'connected',
  'delegatorCount',
  'delegatorWeight',
  'nextPeriod',
  'autoCompoundRewardShares',
];

/** Values that sit on or near an edge of some rule (uint64, percent, string, boolean). */
const ODD_VALUES: unknown[] = [
  null,
  undefined,
  0,
  1,
  -1,
  1.5,
  NaN,
  Infinity,
  1e21,
  2 ** 64,
  0n,
  7n,
  true,
  false,
  [],
  ['1'],
  {},
  { a: 1 },
  { weight: '1' },
  '',
  ' ',
  '0',
  '1',
  '-0',
  '-1',
  '+1',
  '00',
  '007',
  '0x10',
  '1e3',
  '1E3',
  ' 1',
  '1 ',
  '1\n',
  '\n1',
  '1_000',
  '1,000',
  'NaN',
  'Infinity',
  '18446744073709551615',
  '18446744073709551616',
  '18446744073709551614',
  '28446744073709551615',
  '99999999999999999999',
  '09999999999999999999',
  '00000000000000000001',
  '000000000000000000001',
  '100000000000000000000',
  '123456789012345678901234567890',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '9999999999999999',
  '999999999999999',
  '1000000000000000',
  '12345678901234567',
  '100',
  '100.0',
  '100.0000',
  '100.0001',
  '100.00000000000000001',
  '101',
  '1000',
  '99.',
  '.5',
  '1.2.3',
  '99.8712',
  '0.0000',
  '2.0000',
  '000.5',
  '0.1',
  '0.3',
  '33.3333',
  '66.6667',
  '5.123456789012345678',
  '99.99999999999999999999',
  '1.00000000000000000001',
  '0.000000000000001',
  '1234.5',
  '12.',
  '-5',
  '5e1',
  '1.5e1',
  '0,5',
  '50%',
  'true',
  'false',
  'null',
  'undefined',
  '١٢',
  '١',
  '١٢٣.٤',
  '１２',
  '۱۲',
  '٠',
  'x',
  'NodeID-abc',
  '\u0000',
  '\ud800',
  '😀',
];

/** JSON-ish text of a test value, bigints and undefined included (for messages). */
function show(v: unknown): string {
  return String(JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x === undefined ? '<undefined>' : x)));
}

function pick<T>(rng: Prng, xs: readonly T[]): T {
  return xs[Math.floor(rng() * xs.length)] as T;
}

function digits(rng: Prng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String(Math.floor(rng() * 10));
  return s;
}

/** A random digit string, mostly near the sizes that matter (15, 16, 20, 21 digits). */
function randomUintText(rng: Prng): string {
  const len = pick(rng, [1, 2, 3, 9, 10, 15, 16, 17, 19, 20, 20, 20, 21, 25]);
  const r = rng();
  // 20 digits around 2^64-1 exercise the bound's string comparison.
  if (len === 20 && r < 0.5) return `1844674407370955${digits(rng, 4)}`;
  return digits(rng, len);
}

/** A random percent-like string: 0..4 integer digits, maybe a dot, 0..22 decimals (the 15-digit boundary of the exact path is in range). */
function randomPercentText(rng: Prng): string {
  let s = digits(rng, pick(rng, [0, 1, 1, 2, 2, 2, 3, 3, 4]));
  if (rng() < 0.5 && s.length > 0 && s.length < 3) s = s.replace(/^./, pick(rng, ['0', '1', '9']));
  if (rng() < 0.85) s += `.${digits(rng, pick(rng, [0, 1, 2, 4, 4, 4, 8, 11, 12, 13, 14, 15, 16, 20, 22]))}`;
  return s;
}

function randomValue(rng: Prng): unknown {
  const r = rng();
  if (r < 0.45) return pick(rng, ODD_VALUES);
  if (r < 0.7) return randomUintText(rng);
  if (r < 0.95) return randomPercentText(rng);
  return String(Math.floor(rng() * 100));
}

/** A mutated copy of `base` (plain JSON data, copied first). */
function mutate(rng: Prng, base: Record<string, unknown>): unknown {
  const e = structuredClone(base);
  const edits = 1 + Math.floor(rng() * 3);
  for (let i = 0; i < edits; i++) {
    const r = rng();
    const keys = Object.keys(e);
    if (r < 0.15) delete e[pick(rng, rng() < 0.7 ? SCHEMA_KEYS : keys)];
    else if (r < 0.85) e[pick(rng, SCHEMA_KEYS)] = randomValue(rng);
    else if (r < 0.95) e[pick(rng, ['extra', 'delegators', 'signer', 'uptimes', '__proto__x', 'nodeid', 'Weight'])] = randomValue(rng);
    // A key present with undefined, which an optional field takes as missing.
    else e[pick(rng, SCHEMA_KEYS)] = undefined;
  }
  return e;
}

/** The entry, or something else that is not a plain object (zod's object check and the reader's guard). */
function reshape(rng: Prng, e: unknown): unknown {
  const r = rng();
  if (r < 0.96) return e;
  const kinds: (() => unknown)[] = [
    () => null,
    () => [e],
    () => show(e),
    () => 42,
    () => Object.assign(Object.create(null) as object, e),
    () => Object.assign(new (class Entry {})(), e),
    () => Object.assign(Object.create({ nodeID: 'NodeID-inherited' }) as object, e),
    () => Object.assign([], e),
    () => Object.assign(new Date(0), e),
  ];
  return pick(rng, kinds)();
}

// ---------------------------------------------------------------------------------------------

let node: FakeNode;
/** Entries as the fake node's mainnet world serves them: the whole primary set, one validator with delegators, the L1, the legacy subnet. */
let wire: { primary: Record<string, unknown>[]; single: Record<string, unknown>[]; l1: Record<string, unknown>[]; legacy: Record<string, unknown>[] };

beforeAll(async () => {
  node = await FakeNode.start({ state: mainnetWorld() });
  const validators = async (params: unknown) =>
    ((await rpcResult(node.url, '/ext/bc/P', 'platform.getCurrentValidators', params)) as { validators: Record<string, unknown>[] }).validators;
  const primary = await validators({});
  wire = {
    primary,
    // Delegators are listed only when exactly one node id is asked for.
    single: await validators({ nodeIDs: [primary[0]?.['nodeID']] }),
    l1: await validators({ subnetID: L1_SUBNET_ID }),
    legacy: await validators({ subnetID: FIXTURE_IDS.legacySubnetId }),
  };
});
afterAll(async () => {
  await node.stop();
});

describe('readValidatorEntry and readStakeEntry against zod', () => {
  it('take the fast path for every entry the fake node and the fixtures serve', () => {
    expect(wire.primary.length).toBe(1800);
    expect(wire.single.length).toBe(1);
    expect(wire.single[0]?.['delegators']).toBeDefined();
    expect(wire.l1.length).toBe(30);
    expect(wire.legacy.length).toBeGreaterThan(0);
    const all = [...wire.primary, ...wire.single, ...wire.l1, ...wire.legacy, ...fixtureEntries()];
    for (const e of all) {
      const fast = readValidatorEntry(e);
      expect(fast, JSON.stringify(e)).toBeDefined();
      expect(sameObject(fast as ValidatorRecord, toRecord(validatorSchema.parse(e))), JSON.stringify(e)).toBe(true);
      const stake = readStakeEntry(e);
      expect(stake, JSON.stringify(e)).toBeDefined();
      expect(sameObject(stake as object, stakeEntrySchema.parse(e)), JSON.stringify(e)).toBe(true);
    }
  });

  it('return exactly what zod gives when they accept, and defer whatever zod rejects (seeded random mutations)', () => {
    const seeds = [...fixtureEntries(), ...wire.single, ...wire.l1, ...wire.legacy, ...wire.primary.slice(0, 200)];
    const counts = { cases: 0, fastValidator: 0, zodValidator: 0, fastStake: 0, zodStake: 0 };
    for (const seed of [1, 2, 3, 4]) {
      const rng = createPrng(seed);
      for (let c = 0; c < 5000; c++) {
        const entry = reshape(rng, mutate(rng, pick(rng, seeds)));
        const where = `seed ${seed} case ${c}: ${show(entry)}`;
        counts.cases++;

        const z1 = validatorSchema.safeParse(entry);
        const f1 = readValidatorEntry(entry);
        if (z1.success) counts.zodValidator++;
        if (f1 !== undefined) {
          counts.fastValidator++;
          expect(z1.success, where).toBe(true);
          if (z1.success) expect(sameObject(f1, toRecord(z1.data)), where).toBe(true);
        }
        // Completeness: the reader defers only what is not a plain object, so the fast path is not quietly lost.
        if (z1.success && f1 === undefined) expect(Object.getPrototypeOf(entry), where).not.toBe(Object.prototype);

        const z2 = stakeEntrySchema.safeParse(entry);
        const f2 = readStakeEntry(entry);
        if (z2.success) counts.zodStake++;
        if (f2 !== undefined) {
          counts.fastStake++;
          expect(z2.success, where).toBe(true);
          if (z2.success) expect(sameObject(f2, z2.data), where).toBe(true);
        }
        if (z2.success && f2 === undefined) expect(Object.getPrototypeOf(entry), where).not.toBe(Object.prototype);
      }
    }
    // Both outcomes are well represented, or the test proves little.
    expect(counts.fastValidator).toBeGreaterThan(counts.cases * 0.1);
    expect(counts.cases - counts.zodValidator).toBeGreaterThan(counts.cases * 0.3);
    expect(counts.fastStake).toBeGreaterThan(counts.cases * 0.3);
    expect(counts.cases - counts.zodStake).toBeGreaterThan(counts.cases * 0.05);
  });

  it('agree with zod on each edge value of every field', () => {
    const base = fixtureEntries()[0] as Record<string, unknown>;
    for (const key of SCHEMA_KEYS) {
      for (const value of ODD_VALUES) {
        const entry = { ...base, [key]: value };
        const where = `${key} = ${String(value)}`;
        const z1 = validatorSchema.safeParse(entry);
        const f1 = readValidatorEntry(entry);
        expect(f1 !== undefined, where).toBe(z1.success);
        if (f1 !== undefined && z1.success) expect(sameObject(f1, toRecord(z1.data)), where).toBe(true);
        const z2 = stakeEntrySchema.safeParse(entry);
        const f2 = readStakeEntry(entry);
        expect(f2 !== undefined, where).toBe(z2.success);
        if (f2 !== undefined && z2.success) expect(sameObject(f2, z2.data), where).toBe(true);
      }
    }
  });

  it('compute percentages bit for bit as Number(s) / 100, and long uints through BigInt', () => {
    const base = { nodeID: 'n', weight: '1', startTime: '1' };
    const rng = createPrng(99);
    for (let c = 0; c < 20_000; c++) {
      const pct = randomPercentText(rng);
      const uint = randomUintText(rng);
      const entry = { ...base, uptime: pct, delegationFee: pct, delegatorCount: uint, endTime: uint, weight: uint };
      const z1 = validatorSchema.safeParse(entry);
      const f1 = readValidatorEntry(entry);
      expect(f1 !== undefined, `${pct} ${uint}`).toBe(z1.success);
      if (f1 !== undefined && z1.success) expect(sameObject(f1, toRecord(z1.data)), `${pct} ${uint}`).toBe(true);
    }
    expect(readValidatorEntry({ ...base, uptime: '99.8712' })?.uptimeRatio).toBe(Number('99.8712') / 100);
    expect(readValidatorEntry({ ...base, startTime: '18446744073709551615' })?.startTime).toBe(Number(18446744073709551615n));
    expect(readValidatorEntry({ ...base, startTime: '18446744073709551616' })).toBeUndefined();
  });

  it('give stake entries the key set zod gives (delegatorWeight only when the input has it)', () => {
    expect(Object.keys(readStakeEntry({ nodeID: 'a', weight: '1' }) ?? {})).toEqual(['nodeID', 'weight']);
    expect(Object.keys(readStakeEntry({ nodeID: 'a', weight: '1', delegatorWeight: undefined }) ?? {})).toEqual(['nodeID', 'weight', 'delegatorWeight']);
    expect(readStakeEntry({ nodeID: 'a', weight: '1', delegatorWeight: '2' })).toEqual({ nodeID: 'a', weight: 1n, delegatorWeight: 2n });
    expect(readStakeEntry({ nodeID: 'a', weight: '1', delegatorWeight: null })).toBeUndefined();
  });
});

describe('JsonRpcClient.callWithArray with a fast reader', () => {
  const validatorSpec = { key: 'validators', item: validatorSchema, map: toRecord } satisfies ArraySpec<typeof validatorSchema, z.ZodUnknown, ValidatorRecord>;
  const withFast = { ...validatorSpec, fast: readValidatorEntry };

  async function items<S extends z.ZodType, R>(rpc: JsonRpcClient, params: unknown, spec: ArraySpec<S, z.ZodUnknown, R>): Promise<R[]> {
    return (await rpc.callWithArray('/ext/bc/P', 'platform.getCurrentValidators', params, spec, deadline())).items;
  }

  it('reads the same items as zod alone, split or parsed whole', async () => {
    const transport = new HttpTransport({});
    try {
      const rpc = new JsonRpcClient(transport, node.url);
      for (const params of [{}, { subnetID: L1_SUBNET_ID }, { subnetID: FIXTURE_IDS.legacySubnetId }]) {
        for (const splitMinBytes of [0, Infinity]) {
          const slow = await items(rpc, params, { ...validatorSpec, splitMinBytes });
          const fast = await items(rpc, params, { ...withFast, splitMinBytes });
          expect(fast.length).toBe(slow.length);
          expect(fast).toEqual(slow);
          fast.forEach((f, i) => expect(sameObject(f, slow[i] as ValidatorRecord)).toBe(true));
        }
      }
      const stakeSlow = await items(rpc, {}, { key: 'validators', item: stakeEntrySchema });
      const stakeFast = await items(rpc, {}, { key: 'validators', item: stakeEntrySchema, fast: readStakeEntry });
      expect(stakeFast).toEqual(stakeSlow);
      expect(stakeFast.length).toBe(1800);
    } finally {
      await transport.close();
    }
  });

  it('serves the validators and the stake readers from one upstream call per round', async () => {
    const transport = new HttpTransport({});
    try {
      const round = new JsonRpcClient(transport, node.url).forRound();
      const before = node.calls.filter((c) => c.rpcMethod === 'platform.getCurrentValidators').length;
      const [records, stake] = await Promise.all([
        items(round, {}, withFast),
        items(round, {}, { key: 'validators', item: stakeEntrySchema, fast: readStakeEntry }),
      ]);
      expect(node.calls.filter((c) => c.rpcMethod === 'platform.getCurrentValidators').length - before).toBe(1);
      expect(records.map((r) => [r.nodeId, r.weight])).toEqual(stake.map((s) => [s.nodeID, s.weight]));
      expect(records).toEqual(wire.primary.map((e) => toRecord(validatorSchema.parse(e))));
    } finally {
      await transport.close();
    }
  });

  it('gives back the known record for an entry byte for byte unchanged, reads the changed ones, and words a broken one as before', async () => {
    const transport = new HttpTransport({});
    const [a, b, c] = wire.primary.slice(0, 3).map((e) => JSON.stringify(e));
    const answer = (...entries: string[]) => node.setFault('platform.getCurrentValidators', { kind: 'result', json: `{"validators":[${entries.join(',')}]}` });
    try {
      const rpc = new JsonRpcClient(transport, node.url);
      const first = new Map<string, KnownItem<ValidatorRecord>>();
      answer(a as string, b as string);
      const r1 = await items(rpc, {}, { ...withFast, splitMinBytes: 0, remember: first });
      expect(first.size).toBe(2);
      const second = new Map<string, KnownItem<ValidatorRecord>>();
      answer(c as string, b as string, a as string);
      const r2 = await items(rpc, {}, { ...withFast, splitMinBytes: 0, known: first, remember: second });
      expect(r2[1]).toBe(r1[1]);
      expect(r2[2]).toBe(r1[0]);
      expect(r2).toEqual([2, 1, 0].map((i) => toRecord(validatorSchema.parse(wire.primary[i]))));
      expect([...second.values()].map((k) => k.item)).toEqual(expect.arrayContaining(r2));
      expect(second.size).toBe(3);
      // Not parsed whole: the known map is not used, the items are read anew.
      const whole = await items(rpc, {}, { ...withFast, known: second });
      expect(whole).toEqual(r2);
      expect(whole[0]).not.toBe(r2[0]);
      answer(b as string, '{"nodeID":"a","weight":"1","startTime":"1","uptime":"100.0001"}');
      const plain = await items(rpc, {}, { ...withFast, splitMinBytes: 0 }).catch((e: unknown) => e);
      const reused = await items(rpc, {}, { ...withFast, splitMinBytes: 0, known: second }).catch((e: unknown) => e);
      expect((reused as Error).message).toBe((plain as Error).message);
      expect((reused as Error).message).toMatch(/validators\.1\.uptime: percentage outside 0\.\.100/);
      answer(b as string, '{"nodeID":"a",');
      const plainJson = await items(rpc, {}, { ...withFast, splitMinBytes: 0 }).catch((e: unknown) => e);
      const reusedJson = await items(rpc, {}, { ...withFast, splitMinBytes: 0, known: second }).catch((e: unknown) => e);
      expect(reusedJson).toBeInstanceOf(UpstreamError);
      expect((reusedJson as Error).message).toBe((plainJson as Error).message);
    } finally {
      node.setFault('platform.getCurrentValidators', undefined);
      await transport.close();
    }
  });

  it('fails an invalid entry with zod’s message, as without the fast reader', async () => {
    const transport = new HttpTransport({});
    const good = JSON.stringify(wire.primary[0]);
    try {
      const rpc = new JsonRpcClient(transport, node.url);
      const cases: [string, RegExp][] = [
        ['{"nodeID":"a","weight":"18446744073709551616","startTime":"1"}', /validators\.1\.weight: integer exceeds uint64/],
        ['{"nodeID":"a","weight":"1","startTime":"1","uptime":"100.0001"}', /validators\.1\.uptime: percentage outside 0\.\.100/],
        ['{"nodeID":"a","weight":"1","startTime":"1","delegationFee":"1e3"}', /validators\.1\.delegationFee: expected a decimal percentage string/],
        ['{"nodeID":"a","weight":"1","startTime":" 1"}', /validators\.1\.startTime: expected an unsigned decimal integer string/],
        ['{"nodeID":"","weight":"1","startTime":"1"}', /validators\.1\.nodeID: /],
        ['{"nodeID":"a","weight":"1","startTime":"1","connected":"true"}', /validators\.1\.connected: /],
        ['{"nodeID":"a","weight":"1","startTime":"1","endTime":null}', /validators\.1\.endTime: /],
        ['["a"]', /validators\.1: /],
      ];
      for (const [bad, message] of cases) {
        node.setFault('platform.getCurrentValidators', { kind: 'result', json: `{"validators":[${good},${bad}]}` });
        for (const splitMinBytes of [0, Infinity]) {
          const slow = await items(rpc, {}, { ...validatorSpec, splitMinBytes }).then(
            () => undefined,
            (e: unknown) => e,
          );
          const fast = await items(rpc, {}, { ...withFast, splitMinBytes }).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(slow, bad).toBeInstanceOf(UpstreamError);
          expect(fast, bad).toBeInstanceOf(UpstreamError);
          expect((fast as UpstreamError).reason).toBe('invalid_response');
          expect((fast as Error).message, bad).toBe((slow as Error).message);
          expect((fast as Error).message, bad).toMatch(message);
        }
      }
    } finally {
      node.setFault('platform.getCurrentValidators', undefined);
      await transport.close();
    }
  });
});
