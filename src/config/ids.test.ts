import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPAddress, decodeCb58, idProblem, isValidBech32, nodeIdProblem } from './ids.js';
import { buildConfig, loadConfig } from './load.js';
import { defaultFakeState, FIXTURE_IDS, MAINNET_CHAIN_IDS, PRIMARY_NETWORK_ID } from '../../test/fakes/fake-data.js';
import { defaultFakeDataApiState } from '../../test/fakes/fake-data-api.js';
import { problemsOf } from '../../test/helpers/config.js';
import { FIXTURE_DIR } from '../../test/helpers/fixtures.js';

const FIXTURES = FIXTURE_DIR;
const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

/** Every value of `key` anywhere in the reference fixtures. */
function fixtureValues(key: string): string[] {
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === key && typeof x === 'string') out.add(x);
        else walk(x);
      }
    }
  };
  for (const f of readdirSync(FIXTURES).filter((n) => n.endsWith('.json'))) walk(JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')));
  return [...out];
}

/** `s` with the character at `i` replaced by the next one of `alphabet` (always a different, valid character). */
function mutate(s: string, i: number, alphabet: string): string {
  const c = s[i] as string;
  const next = alphabet[(alphabet.indexOf(c) + 1) % alphabet.length] as string;
  return s.slice(0, i) + next + s.slice(i + 1);
}

/** Re-encodes the payload of a bech32 string under another human-readable part (checksum recomputed). */
function withHrp(bech: string, hrp: string): string {
  const data = [...bech.slice(bech.lastIndexOf('1') + 1, -6)].map((c) => BECH32.indexOf(c));
  const gens = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  const polymod = (values: number[]) => {
    let chk = 1;
    for (const v of values) {
      const top = chk >>> 25;
      chk = ((chk & 0x1ffffff) << 5) ^ v;
      for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= gens[i] as number;
    }
    return chk;
  };
  const expanded = [...hrp]
    .map((c) => c.charCodeAt(0) >> 5)
    .concat(
      [0],
      [...hrp].map((c) => c.charCodeAt(0) & 31),
    );
  const mod = polymod([...expanded, ...data, 0, 0, 0, 0, 0, 0]) ^ 1;
  const sum = [0, 1, 2, 3, 4, 5].map((i) => (mod >>> (5 * (5 - i))) & 31);
  return `${hrp}1${[...data, ...sum].map((v) => BECH32[v]).join('')}`;
}

const NODE_IDS = fixtureValues('nodeID');
const IDS = [...fixtureValues('txID'), ...fixtureValues('validationID'), ...fixtureValues('subnetID'), ...fixtureValues('blockchainID')];
const P_ADDRESSES = ['P-avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre5', 'P-avax1ywzvrftfqexh5g6qa9zyrytj6pqdfetz3cnlnv'];

describe('CB58 ids (avalanchego utils/formatting, ids)', () => {
  it('the reference fixtures hold real ids: node ids decode to 20 bytes, ids to 32', () => {
    expect(NODE_IDS.length).toBeGreaterThanOrEqual(5);
    expect(IDS.length).toBeGreaterThanOrEqual(8);
    for (const id of NODE_IDS) expect(nodeIdProblem(id), id).toBeUndefined();
    for (const id of IDS) {
      expect(idProblem(id, 'subnet id'), id).toBeUndefined();
      const r = decodeCb58(id);
      expect(r.ok && r.bytes.length).toBe(32);
    }
    // The primary network id is 32 zero bytes: every leading '1' is one.
    const p = decodeCb58(PRIMARY_NETWORK_ID);
    expect(p.ok && [...p.bytes].every((b) => b === 0) && p.bytes.length).toBe(32);
  });

  it('one character changed anywhere is rejected by the checksum, naming the id', () => {
    for (const id of [...NODE_IDS, ...IDS]) {
      const body = id.startsWith('NodeID-') ? 7 : 0;
      for (const i of [body, body + 5, Math.floor((id.length + body) / 2), id.length - 1]) {
        const bad = mutate(id, i, B58);
        const problem = body ? nodeIdProblem(bad) : idProblem(bad, 'validation id');
        expect(problem, bad).toBeDefined();
        expect(problem).toContain(bad);
      }
    }
    expect(idProblem('2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByN', 'blockchain id')).toBe(
      '"2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByN" is not a valid blockchain id: its checksum does not match (a character mistyped, or one lost or added when copied?)',
    );
  });

  it('says what is wrong: a character outside base58, a truncated copy, a node id where an id belongs and the reverse', () => {
    expect(idProblem('2h2fuXTjGoYJCyL4JWkUjKMYsL9YWM6zDxYEKDzsU5ukFoKo9O', 'subnet id')).toMatch(/"O" is not a base58 character/);
    // A copy cut short by a character or two is told its length, not a checksum (AvalancheGo would say "invalid input checksum").
    expect(idProblem(FIXTURE_IDS.l1SubnetId.slice(0, -2), 'subnet id')).toBe(
      `"${FIXTURE_IDS.l1SubnetId.slice(0, -2)}" is not a subnet id: it is too short (48 characters holding 35 bytes; a subnet id is 32 bytes and a 4-byte checksum, usually 49 or 50 characters): cut short when copied?`,
    );
    expect(idProblem(`${FIXTURE_IDS.l1ValidationId}2`, 'validation id')).toMatch(
      /is not a validation id: it is too long \(51 characters holding 37 bytes;.*run on when copied\?$/,
    );
    expect(idProblem('abc', 'validation id')).toMatch(/^"abc" is not a validation id: it is too short \(3 characters holding 3 bytes;/);
    expect(nodeIdProblem(FIXTURE_IDS.nodeId.slice(0, -3))).toMatch(
      /is not a node id: it is too short \(\d+ characters after NodeID- holding 2[0-3] bytes; a node id is 20 bytes/,
    );
    expect(idProblem(FIXTURE_IDS.nodeId, 'subnet id')).toBe(`"${FIXTURE_IDS.nodeId}" is a node id, not a subnet id`);
    expect(idProblem(FIXTURE_IDS.nodeId.slice(7), 'validation id')).toMatch(/holds 20 bytes, an id holds 32 \(a node id without its NodeID- prefix\?\)/);
    expect(nodeIdProblem(`NodeID-${FIXTURE_IDS.l1ValidationId}`)).toMatch(/holds 32 bytes, a node id holds 20/);
    expect(nodeIdProblem(FIXTURE_IDS.nodeId.slice(7))).toMatch(/must start with NodeID-/);
    expect(nodeIdProblem('NodeID-')).toMatch(/empty string/);
    expect(idProblem('', 'subnet id')).toMatch(/empty string/);
  });

  it('every id of the fake node, the fake Data API and the chain ids the exporter knows is valid', () => {
    const s = defaultFakeState();
    for (const id of [s.nodeId, ...s.primaryValidators.map((v) => v.nodeId), ...s.peers.map((p) => p.nodeId)]) expect(nodeIdProblem(id), id).toBeUndefined();
    for (const v of s.primaryValidators) expect(idProblem(v.txId, 'validation id'), v.txId).toBeUndefined();
    for (const [subnetId, sub] of Object.entries(s.subnets)) {
      expect(idProblem(subnetId, 'subnet id')).toBeUndefined();
      for (const v of sub.validators) {
        expect(nodeIdProblem(v.nodeId), v.nodeId).toBeUndefined();
        const id = 'validationId' in v ? v.validationId : v.txId;
        expect(idProblem(id, 'validation id'), id).toBeUndefined();
      }
    }
    for (const b of s.blockchains) expect(idProblem(b.id, 'blockchain id'), b.id).toBeUndefined();
    for (const id of Object.values(MAINNET_CHAIN_IDS)) expect(idProblem(id, 'blockchain id')).toBeUndefined();
    for (const id of Object.values(FIXTURE_IDS)) expect(id.startsWith('NodeID-') ? nodeIdProblem(id) : idProblem(id, 'subnet id'), id).toBeUndefined();
    const api = defaultFakeDataApiState();
    for (const [nodeId, vs] of Object.entries(api.validations)) {
      expect(nodeIdProblem(nodeId)).toBeUndefined();
      for (const v of vs) expect(idProblem(v.txHash, 'validation id'), v.txHash).toBeUndefined();
    }
  });
});

describe('P-Chain addresses (bech32, avalanchego utils/formatting/address)', () => {
  it('accepts real addresses of every network prefix, and one character changed is a bad checksum', () => {
    const all = P_ADDRESSES.flatMap((a) => [a, ...['fuji', 'local', 'custom'].map((hrp) => `P-${withHrp(a.slice(2), hrp)}`)]);
    expect(all).toContain('P-fuji18jma8ppw3nhx5r4ap8clazz0dps7rv5u6wmu4t');
    for (const a of all) {
      expect(checkPAddress(a), a).toEqual({ ok: true, hrp: a.slice(2, a.indexOf('1')) });
      for (const i of [a.indexOf('1') + 1, a.length - 10, a.length - 1]) {
        const bad = mutate(a, i, BECH32);
        expect(isValidBech32(bad.slice(2))).toBe(false);
        expect(checkPAddress(bad)).toEqual({
          ok: false,
          problem: `"${bad}" is not a valid P-Chain address: its checksum does not match (a typo or a truncated copy?)`,
        });
      }
    }
  });

  it('says what is wrong with something that is not one', () => {
    const problem = (s: string) => (checkPAddress(s) as { problem: string }).problem;
    expect(problem('X-avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre5')).toMatch(/an X- or C-Chain address/);
    expect(problem('P-AVAX18JMA8PPW3NHX5R4AP8CLAZZ0DPS7RV5UKULRE5')).toMatch(/lower case/);
    expect(problem(`P-${withHrp('avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre5', 'test')}`)).toMatch(/"test" is not a network prefix/);
    expect(problem('P-avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulrebo')).toMatch(/neither 1, b, i nor o/);
    // A valid bech32 string of the wrong length: a 32-byte payload is not an address.
    const long = withHrp(`avax1${'q'.repeat(52)}qqqqqq`, 'avax');
    expect(isValidBech32(long)).toBe(true);
    expect(problem(`P-${long}`)).toMatch(/holds 32 bytes, an address holds 20/);
  });
});

describe('the configuration checks its ids (exit 2 with the path and the id)', () => {
  const BAD_NODE = mutate(FIXTURE_IDS.nodeId, 12, B58);
  const BAD_SUBNET = mutate(FIXTURE_IDS.l1SubnetId, 3, B58);
  const BAD_VALIDATION = mutate(FIXTURE_IDS.l1ValidationId, 20, B58);
  const BAD_CHAIN = mutate(FIXTURE_IDS.l1ChainId, 8, B58);
  const BAD_P = mutate(P_ADDRESSES[0] as string, 20, BECH32);

  it('flags and environment: every bad id with its path', () => {
    const problems = problemsOf(() =>
      loadConfig([`--watch.node-id=${FIXTURE_IDS.nodeId}`, `--watch.node-id=${BAD_NODE}`, `--watch.subnet-id=${BAD_SUBNET}`], {
        AVAX_EXPORTER_WATCH_VALIDATION_ID: BAD_VALIDATION,
      }),
    );
    expect(problems).toEqual([
      `--watch.node-id: "${BAD_NODE}" is not a valid node id: its checksum does not match (a character mistyped, or one lost or added when copied?)`,
      `--watch.subnet-id: "${BAD_SUBNET}" is not a valid subnet id: its checksum does not match (a character mistyped, or one lost or added when copied?)`,
      `AVAX_EXPORTER_WATCH_VALIDATION_ID: "${BAD_VALIDATION}" is not a valid validation id: its checksum does not match (a character mistyped, or one lost or added when copied?)`,
    ]);
  });

  it('the file: per-node watch lists, L1 blockchain ids and P-Chain addresses', () => {
    const problems = problemsOf(() =>
      buildConfig({
        nodes: [{ url: 'http://127.0.0.1:9650', watch: { node_ids: [FIXTURE_IDS.l1SubnetId], validation_ids: [FIXTURE_IDS.nodeId] } }],
        addresses: [
          { alias: 'relayer', chain: BAD_CHAIN, address: '0x0000000000000000000000000000000000000001' },
          { alias: 'fees', chain: 'P', address: BAD_P },
          { alias: 'local', chain: 'P', address: `P-${withHrp(P_ADDRESSES[0]?.slice(2) as string, 'local')}` },
        ],
      }),
    );
    expect(problems).toEqual([
      `nodes[0].watch.node_ids[0]: "${FIXTURE_IDS.l1SubnetId}" is not a node id: it must start with NodeID- (like NodeID-5mb46qkSBj81k9g9e4VFjGGSbaaSLFRzD)`,
      `nodes[0].watch.validation_ids[0]: "${FIXTURE_IDS.nodeId}" is a node id, not a validation id`,
      `addresses[0].chain: "${BAD_CHAIN}" is not a valid blockchain id: its checksum does not match (a character mistyped, or one lost or added when copied?)`,
      `addresses[1].address: "${BAD_P}" is not a valid P-Chain address: its checksum does not match (a typo or a truncated copy?)`,
      expect.stringMatching(
        /^addresses\[2\]\.address: "P-local1\S+" is an address of a local network; P-Chain balances come from the Data API, which serves mainnet \(P-avax1…\) and fuji \(P-fuji1…\) only$/,
      ),
    ]);
  });

  it('valid ids pass unchanged', () => {
    const config = buildConfig({
      watch: { node_ids: NODE_IDS, subnet_ids: [FIXTURE_IDS.l1SubnetId, FIXTURE_IDS.legacySubnetId], validation_ids: [FIXTURE_IDS.l1ValidationId] },
      addresses: [{ alias: 'relayer', chain: FIXTURE_IDS.l1ChainId, address: '0x0000000000000000000000000000000000000001' }],
    });
    expect(config.nodes[0]?.watch).toMatchObject({
      nodeIds: NODE_IDS,
      subnetIds: [FIXTURE_IDS.l1SubnetId, FIXTURE_IDS.legacySubnetId],
      validationIds: [FIXTURE_IDS.l1ValidationId],
    });
  });
});
