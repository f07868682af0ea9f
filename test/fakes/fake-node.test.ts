/**
 * Fidelity tests of the fake AvalancheGo node: every reference fixture (and variant) is replayed
 * against a real FakeNode over HTTP and the answer must match the fixture's status, headers,
 * body shape (keys, key order, JSON types) and, since the default state is built from the
 * fixtures, its values. Then state mutations, faults, lifecycle, scale and the demo node.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeNode, type FakeCheck, type FakeNodeState, type FakeValidator } from './fake-node.js';
import { cb58Decode, cb58Encode, defaultFakeState, FIXTURE_IDS, generatePeers, generateValidators, isCb58Id, isCb58NodeId } from './fake-data.js';
import { createDemoState, startDemoNode } from '../../src/demo/node.js';
import { FIXTURE_DIR } from '../helpers/fixtures.js';

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

interface WireRequest {
  httpMethod: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

interface WireResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

interface FixtureCase {
  file: string;
  name: string;
  request: WireRequest;
  response: WireResponse;
}

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  reusedSocket: boolean;
}

/**
 * A bare node:http request: unlike fetch it adds no Content-Type of its own (the 415 fixture
 * needs a body without one) and, with `agent: false`, never reuses a pooled socket.
 */
function request(
  node: { port: number },
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string; agent?: http.Agent; timeoutMs?: number },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: node.port,
        method: opts.method ?? 'POST',
        path: opts.path,
        headers: opts.headers ?? {},
        agent: opts.agent ?? false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
            reusedSocket: req.reusedSocket,
          }),
        );
        res.on('error', reject);
        res.on('aborted', () => reject(new Error('response aborted')));
      },
    );
    req.on('error', reject);
    if (opts.timeoutMs !== undefined) {
      req.setTimeout(opts.timeoutMs, () => req.destroy(new Error('client timeout')));
    }
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** A JSON-RPC POST; returns the parsed body. */
async function rpc(node: { port: number }, urlPath: string, method: string, params?: unknown): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = { jsonrpc: '2.0', id: 1, method };
  if (params !== undefined) body['params'] = params;
  const res = await request(node, {
    path: urlPath,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return JSON.parse(res.text) as Record<string, unknown>;
}

async function rpcResult<T = Record<string, unknown>>(node: { port: number }, urlPath: string, method: string, params?: unknown): Promise<T> {
  const body = await rpc(node, urlPath, method, params);
  expect(body['error']).toBeUndefined();
  return body['result'] as T;
}

function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/**
 * Differences in shape: same JSON type everywhere, same object keys in the same order, and every
 * array element shaped like the expected array's first element (empty arrays carry no shape).
 */
function shapeDiffs(actual: unknown, expected: unknown, at = '$', out: string[] = []): string[] {
  if (kind(actual) !== kind(expected)) {
    out.push(`${at}: ${kind(actual)} instead of ${kind(expected)}`);
    return out;
  }
  if (Array.isArray(actual) && Array.isArray(expected)) {
    if (expected.length > 0) actual.forEach((e, i) => shapeDiffs(e, expected[0], `${at}[${i}]`, out));
    return out;
  }
  if (kind(actual) === 'object') {
    const a = actual as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    const ak = Object.keys(a);
    const ek = Object.keys(e);
    if (ak.join('\u0000') !== ek.join('\u0000')) out.push(`${at}: keys [${ak.join(', ')}] instead of [${ek.join(', ')}]`);
    for (const k of ek) if (k in a) shapeDiffs(a[k], e[k], `${at}.${k}`, out);
  }
  return out;
}

function header(h: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(h).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : h[key];
}

function loadFixtureCases(): FixtureCase[] {
  const cases: FixtureCase[] = [];
  for (const file of fs
    .readdirSync(FIXTURE_DIR)
    .filter((f) => /^node\..*\.json$/.test(f))
    .sort()) {
    const doc = JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, file), 'utf8')) as {
      request: WireRequest;
      response: WireResponse;
      variants?: Array<{ name: string; request: WireRequest; response: WireResponse }>;
    };
    cases.push({ file, name: 'main', request: doc.request, response: doc.response });
    for (const v of doc.variants ?? []) cases.push({ file, name: v.name, request: v.request, response: v.response });
  }
  return cases;
}

function fixtureChecks(c: FixtureCase, inResult: boolean): Record<string, FakeCheck> {
  const body = c.response.body as Record<string, unknown>;
  const reply = (inResult ? body['result'] : body) as { checks: Record<string, FakeCheck> };
  return structuredClone(reply.checks);
}

/**
 * How to put the fake into the state a fixture case describes. Cases not listed here run
 * against the default state, which is built from the fixtures.
 */
const SETUP: Record<string, (node: FakeNode, c: FixtureCase) => void> = {
  // The base capture comes from a node not tracking the L1, so it lists no L1 chain check.
  'node.health.GET.json#main': (n) => {
    delete n.state.health[FIXTURE_IDS.l1ChainId];
  },
  'node.health.GET.json#unhealthy-bootstrapping-503': (n, c) => {
    n.state.health = fixtureChecks(c, false);
  },
  'node.health.GET.json#tag-filtered-L1-unhealthy-503': (n, c) => {
    const check = fixtureChecks(c, false)[FIXTURE_IDS.l1ChainId];
    if (!check) throw new Error('fixture lacks the L1 check');
    n.state.health[FIXTURE_IDS.l1ChainId] = check;
  },
  'node.health.health.json#unhealthy-still-200': (n, c) => {
    n.state.health = fixtureChecks(c, true);
  },
  'node.info.acps.json#older-release-with-current-acps': (n) => {
    n.state.acps = {
      '23': { supportWeight: 0n, supporters: [], objectWeight: 0n, objectors: [], abstainWeight: 161147778098286584n },
      '24': {
        supportWeight: 2000000000000n,
        supporters: [FIXTURE_IDS.nodeId],
        objectWeight: 0n,
        objectors: [],
        abstainWeight: 161145778098286584n,
      },
    };
  },
  'node.info.getNetworkID.json#fuji': (n) => {
    n.state.networkId = 5;
  },
  'node.info.getNetworkName.json#fuji': (n) => {
    n.state.networkId = 5;
  },
  'node.info.getNetworkName.json#custom-network': (n) => {
    n.state.networkId = 1337;
  },
  'node.info.isBootstrapped.json#not-bootstrapped': (n) => {
    n.state.bootstrapped['C'] = false;
  },
  'node.info.peers.json#no-peers': (n) => {
    n.state.peers = [];
  },
  'node.info.uptime.json#not-a-validator': (n) => {
    n.state.uptime = null;
  },
  'node.jsonrpc.error.json#handler-error-not-validator': (n) => {
    n.state.uptime = null;
  },
  'node.jsonrpc.error.json#chain-not-bootstrapped': (n) => {
    n.state.bootstrapped['P'] = false;
  },
  'node.platform.getCurrentValidators.primary.json#auto-renewed-validator-master-only': (n) => {
    const owner = () => ({ locktime: 0, threshold: 1, addresses: ['P-avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre5'] });
    const v: FakeValidator = {
      txId: '16MA2Xab56TFz9vQNA2MsjiYKWBVoGyYqY3Zkg2wLQZEt6H39',
      nodeId: 'NodeID-Gd42CeDxis5Xx6aXYWa4H3KeDpEuXmb7i',
      startTime: 1787000000,
      endTime: 1788209600,
      weight: 2500000000000n,
      validationRewardOwner: owner(),
      delegationRewardOwner: owner(),
      potentialReward: 4122000000n,
      accruedDelegateeReward: 0n,
      delegationFee: 2,
      uptime: 100,
      connected: true,
      signer: {
        publicKey: '0x691e038584bed9540d1de22b8dda20b166a308e7763144628cc4f92d75a6d4019552b760676f23f33c08b76f99cf70cd',
        proofOfPossession:
          '0xef6c85ce8961db5486b03cc7189f895bf27a3bd9b229a00aa4af251c875c992dad2ff9eba5280b4c82b27fcc554f8399cb888e188cd354faa681a81ac21f75cc99936021d29f7307bdf05b134fb2a6b5ce5126819fedc128414a0d1f8cd6e4a4',
      },
      autoRenew: { validatorAuthority: owner(), nextPeriod: 1209600, autoCompoundRewardShares: 500000 },
      delegators: [],
    };
    n.state.primaryValidators.push(v);
  },
};

// ---------------------------------------------------------------------------------------------
// Fixture fidelity
// ---------------------------------------------------------------------------------------------

const CASES = loadFixtureCases();

describe('fixture fidelity', () => {
  let node: FakeNode;
  beforeEach(async () => {
    node = await FakeNode.start();
  });
  afterEach(async () => {
    await node.stop();
  });

  it('loads every node fixture', () => {
    const files = new Set(CASES.map((c) => c.file));
    expect(files.size).toBeGreaterThanOrEqual(25);
    expect(CASES.length).toBeGreaterThan(50);
  });

  it.each(CASES.map((c) => [`${c.file} ${c.name}`, c] as const))('%s', async (_label, c) => {
    SETUP[`${c.file}#${c.name}`]?.(node, c);
    const req = c.request;
    const body = req.body === null ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
    const res = await request(node, { method: req.httpMethod, path: req.path, headers: req.headers, body });

    expect(res.status).toBe(c.response.status);
    for (const h of ['content-type', 'x-content-type-options', 'node-id']) {
      expect(res.headers[h] ?? null, h).toBe(header(c.response.headers, h) ?? null);
    }
    const expected = c.response.body;
    if (typeof expected === 'string') {
      expect(res.text).toBe(expected);
      return;
    }
    // Go's json.Encoder ends every JSON body with a newline.
    expect(res.text.endsWith('}\n')).toBe(true);
    const actual: unknown = JSON.parse(res.text);
    expect(shapeDiffs(actual, expected)).toEqual([]);
    // The default state is the fixtures' data, so values match too.
    expect(actual).toEqual(expected);
  });
});

// ---------------------------------------------------------------------------------------------
// Behaviour beyond the fixtures
// ---------------------------------------------------------------------------------------------

describe('FakeNode behaviour', () => {
  let node: FakeNode;
  beforeEach(async () => {
    node = await FakeNode.start();
  });
  afterEach(async () => {
    await node.stop();
  });

  it('failCheck and passCheck drive the health endpoints', async () => {
    node.failCheck('network', 'network layer is unhealthy');
    let res = await request(node, { method: 'GET', path: '/ext/health' });
    expect(res.status).toBe(503);
    let body = JSON.parse(res.text) as { checks: Record<string, Record<string, unknown>>; healthy: boolean };
    expect(body.healthy).toBe(false);
    const failing = body.checks['network'];
    expect(Object.keys(failing ?? {})).toEqual(['message', 'error', 'timestamp', 'duration', 'contiguousFailures', 'timeOfFirstFailure']);
    expect(failing?.['error']).toBe('network layer is unhealthy');
    expect(failing?.['contiguousFailures']).toBe(1);
    const first = failing?.['timeOfFirstFailure'];
    expect(first).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

    await new Promise((r) => setTimeout(r, 5));
    node.failCheck('network', 'still unhealthy');
    body = JSON.parse((await request(node, { method: 'GET', path: '/ext/health/health' })).text) as typeof body;
    expect(body.checks['network']?.['contiguousFailures']).toBe(2);
    expect(body.checks['network']?.['timeOfFirstFailure']).toBe(first);

    // JSON-RPC keeps HTTP 200 while unhealthy.
    const viaRpc = await rpcResult<{ healthy: boolean }>(node, '/ext/health', 'health.health');
    expect(viaRpc.healthy).toBe(false);

    // A tag filter still includes application-wide checks such as network.
    res = await request(node, { method: 'GET', path: `/ext/health?tag=${FIXTURE_IDS.l1SubnetId}` });
    expect(res.status).toBe(503);

    node.passCheck('network');
    res = await request(node, { method: 'GET', path: '/ext/health' });
    expect(res.status).toBe(200);
    body = JSON.parse(res.text) as typeof body;
    expect(body.healthy).toBe(true);
    expect(Object.keys(body.checks['network'] ?? {})).toEqual(['message', 'timestamp', 'duration']);
  });

  it('filters health by tag: chain checks of that subnet plus application-wide checks', async () => {
    const res = await request(node, {
      method: 'GET',
      path: `/ext/health?tag=${FIXTURE_IDS.l1SubnetId}&tag=11111111111111111111111111111111LpoYY`,
    });
    const names = Object.keys((JSON.parse(res.text) as { checks: object }).checks);
    expect(names).toEqual(['C', FIXTURE_IDS.l1ChainId, 'P', 'X', 'bls', 'bootstrapped', 'database', 'diskspace', 'futureupgrade', 'network', 'router']);
    const unknownTag = await request(node, { method: 'GET', path: '/ext/health?tag=nope' });
    expect(Object.keys((JSON.parse(unknownTag.text) as { checks: object }).checks)).toEqual([
      'bls',
      'bootstrapped',
      'database',
      'diskspace',
      'futureupgrade',
      'network',
      'router',
    ]);
  });

  it('answers info.uptime with an error once the node is not a validator, and recovers', async () => {
    expect(await rpcResult(node, '/ext/info', 'info.uptime')).toEqual({
      rewardingStakePercentage: '100.0000',
      weightedAveragePercentage: '99.7214',
    });
    node.state.uptime = null;
    expect((await rpc(node, '/ext/info', 'info.uptime'))['error']).toEqual({
      code: -32000,
      message: "couldn't get node uptime: node is not a validator",
      data: null,
    });
    node.state.uptime = { rewardingStakePercentage: 97.123456, weightedAveragePercentage: 88 };
    expect(await rpcResult(node, '/ext/info', 'info.uptime')).toEqual({
      rewardingStakePercentage: '97.1235',
      weightedAveragePercentage: '88.0000',
    });
  });

  it('shows validator mutations (disconnect, uptime, delegators) on the next call', async () => {
    const self = node.state.primaryValidators[0];
    if (!self) throw new Error('no self validator');
    self.connected = false;
    self.uptime = 42.5;
    self.delegators = [];
    const { validators } = await rpcResult<{ validators: Array<Record<string, unknown>> }>(node, '/ext/bc/P', 'platform.getCurrentValidators', {
      nodeIDs: [FIXTURE_IDS.nodeId],
    });
    expect(validators).toHaveLength(1);
    expect(validators[0]).toMatchObject({ connected: false, uptime: '42.5000', delegatorCount: '0', delegatorWeight: '0', delegators: [] });
  });

  it('lists delegators only for exactly one distinct node ID', async () => {
    const call = (nodeIDs: string[]) =>
      rpcResult<{ validators: Array<Record<string, unknown>> }>(node, '/ext/bc/P', 'platform.getCurrentValidators', { nodeIDs });
    expect((await call([FIXTURE_IDS.nodeId, FIXTURE_IDS.nodeId])).validators[0]).toHaveProperty('delegators');
    const two = await call([FIXTURE_IDS.nodeId, FIXTURE_IDS.disconnectedValidatorNodeId]);
    expect(two.validators).toHaveLength(2);
    for (const v of two.validators) expect(v).not.toHaveProperty('delegators');
    // Unknown (but valid) node IDs are silently omitted.
    expect((await call(['NodeID-8PYXX47kqLDe2wD4oPbvRRchcnSzMA4J4'])).validators).toEqual([]);
  });

  it('serves L1 validators, filters by node ID and answers [] for an unknown subnet', async () => {
    const l1 = await rpcResult<{ validators: Array<Record<string, unknown>> }>(node, '/ext/P', 'platform.getCurrentValidators', {
      subnetID: FIXTURE_IDS.l1SubnetId,
      nodeIDs: [FIXTURE_IDS.l1InactiveNodeId],
    });
    expect(l1.validators).toHaveLength(1);
    expect(l1.validators[0]).toMatchObject({ nodeID: FIXTURE_IDS.l1InactiveNodeId, balance: '0' });
    expect(l1.validators[0]).not.toHaveProperty('endTime');
    expect(l1.validators[0]).not.toHaveProperty('connected');
    const unknown = await rpcResult<{ validators: unknown[] }>(node, '/ext/bc/P', 'platform.getCurrentValidators', {
      subnetID: '29uVeLPJB1eQJkzRemU8g8wZDw5uJRqpab5U2mX9euieVwiEbL',
    });
    expect(unknown.validators).toEqual([]);
    const missing = await rpc(node, '/ext/bc/P', 'platform.getL1Validator', { validationID: FIXTURE_IDS.l1SubnetId });
    expect((missing['error'] as { message: string }).message).toBe(`fetching L1 validator "${FIXTURE_IDS.l1SubnetId}" failed: not found`);
  });

  it('accepts params as a one-element array and matches field names case-insensitively', async () => {
    const viaArray = await rpcResult<{ validators: unknown[] }>(node, '/ext/bc/P', 'platform.getCurrentValidators', [
      { NODEIDS: [FIXTURE_IDS.disconnectedValidatorNodeId] },
    ]);
    expect(viaArray.validators).toHaveLength(1);
    const bad = await rpc(node, '/ext/bc/P', 'platform.getHeight', 'oops');
    expect((bad['error'] as { code: number }).code).toBe(-32000);
  });

  it('resolves chain aliases and IDs in info.isBootstrapped and info.getBlockchainID', async () => {
    for (const chain of ['P', 'platform', 'X', 'avm', 'C', 'evm', '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5', FIXTURE_IDS.l1ChainId]) {
      expect(await rpcResult(node, '/ext/info', 'info.isBootstrapped', { chain })).toEqual({ isBootstrapped: true });
    }
    node.state.bootstrapped[FIXTURE_IDS.l1ChainId] = false;
    expect(await rpcResult(node, '/ext/info', 'info.isBootstrapped', { chain: FIXTURE_IDS.l1ChainId })).toEqual({ isBootstrapped: false });
    expect(await rpcResult(node, '/ext/info', 'info.getBlockchainID', { alias: 'C' })).toEqual({
      blockchainID: '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5',
    });
    expect((await rpc(node, '/ext/info', 'info.getBlockchainID', { alias: 'Q' }))['error']).toMatchObject({
      message: 'there is no ID with alias: Q',
    });
  });

  it('rejects chain APIs with 503 text while a chain bootstraps, leaving info and health up', async () => {
    node.state.bootstrapped['C'] = false;
    node.state.bootstrapped[FIXTURE_IDS.l1ChainId] = false;
    for (const p of ['/ext/bc/C/rpc', `/ext/bc/${FIXTURE_IDS.l1ChainId}/validators`]) {
      const res = await request(node, { path: p, headers: { 'Content-Type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(503);
      expect(res.text).toBe('API call rejected because chain is not done bootstrapping\n');
    }
    expect(await rpcResult(node, '/ext/bc/X', 'avm.getHeight')).toEqual({ height: '5094088' });
    expect((await request(node, { method: 'GET', path: '/ext/health/liveness' })).status).toBe(200);
  });

  it('serves the deprecated platform.getBlockchains and geth extras', async () => {
    const { blockchains } = await rpcResult<{ blockchains: Array<Record<string, string>> }>(node, '/ext/bc/P', 'platform.getBlockchains');
    expect(blockchains.map((b) => Object.keys(b))).toEqual([
      ['id', 'name', 'subnetID', 'vmID'],
      ['id', 'name', 'subnetID', 'vmID'],
      ['id', 'name', 'subnetID', 'vmID'],
    ]);
    expect(blockchains.map((b) => b['name'])).toContain('C-Chain');
    node.state.heights.C = 255n;
    const res = await request(node, {
      path: '/ext/bc/C/rpc',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
        { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
      ]),
    });
    expect(JSON.parse(res.text)).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0xff' },
      { jsonrpc: '2.0', id: 2, result: '0xa86a' },
    ]);
    const l1 = await request(node, {
      path: `/ext/bc/${FIXTURE_IDS.l1ChainId}/rpc`,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' }),
    });
    expect(JSON.parse(l1.text)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x2d093' });
  });

  it('answers unknown routes with 404 and GET on JSON-RPC routes with 405', async () => {
    expect((await request(node, { method: 'GET', path: '/ext/nope' })).status).toBe(404);
    expect((await request(node, { method: 'GET', path: '/ext/bc/P/nope' })).status).toBe(404);
    const get = await request(node, { method: 'GET', path: '/ext/bc/P' });
    expect(get.status).toBe(405);
    expect(get.text).toBe('rpc: POST method required, received GET');
    const formCt = await request(node, { path: '/ext/info', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '{}' });
    expect(formCt.status).toBe(415);
    expect(formCt.text).toBe('rpc: unrecognized Content-Type: application/x-www-form-urlencoded');
    const charset = await request(node, {
      path: '/ext/info',
      headers: { 'Content-Type': 'application/json; charset=UTF-8' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'abc', method: 'info.getNodeIP' }),
    });
    expect(JSON.parse(charset.text)).toEqual({ jsonrpc: '2.0', result: { ip: '203.0.113.10:9651' }, id: 'abc' });
  });

  it('records every call', async () => {
    await rpc(node, '/ext/info', 'info.peers', { nodeIDs: [] });
    await request(node, { method: 'GET', path: '/ext/health?tag=x' });
    await request(node, { path: '/ext/info', headers: { 'Content-Type': 'application/json' }, body: '{broken' });
    expect(node.calls).toHaveLength(3);
    expect(node.calls[0]).toMatchObject({ path: '/ext/info', httpMethod: 'POST', rpcMethod: 'info.peers', params: { nodeIDs: [] } });
    expect(node.calls[1]).toMatchObject({ path: '/ext/health', query: '?tag=x', httpMethod: 'GET' });
    expect(node.calls[1]?.rpcMethod).toBeUndefined();
    expect(node.calls[2]?.rpcMethod).toBeUndefined();
    for (const c of node.calls) expect(Math.abs(c.at - Date.now())).toBeLessThan(5000);
    node.clearCalls();
    expect(node.calls).toHaveLength(0);
  });

  it('keeps connections alive between requests', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'info.getNodeID' });
      const headers = { 'Content-Type': 'application/json' };
      const a = await request(node, { path: '/ext/info', headers, body, agent });
      const b = await request(node, { path: '/ext/info', headers, body, agent });
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect(b.reusedSocket).toBe(true);
    } finally {
      agent.destroy();
    }
  });

  it('starts with state overrides merged over the default', async () => {
    const other = await FakeNode.start({ state: { networkId: 5, heights: { P: 7n, X: 8n, C: 9n } } });
    try {
      expect(await rpcResult(other, '/ext/info', 'info.getNetworkName')).toEqual({ networkName: 'fuji' });
      expect(await rpcResult(other, '/ext/bc/P', 'platform.getHeight')).toEqual({ height: '7' });
      expect(other.url).toBe(`http://127.0.0.1:${other.port}`);
    } finally {
      await other.stop();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Faults and lifecycle
// ---------------------------------------------------------------------------------------------

describe('faults', () => {
  let node: FakeNode;
  beforeEach(async () => {
    node = await FakeNode.start();
  });
  afterEach(async () => {
    await node.stop();
  });

  const peersCall = () =>
    request(node, {
      path: '/ext/info',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'info.peers' }),
      timeoutMs: 2000,
    });

  it('answers a status fault for the targeted method only', async () => {
    node.setFault('info.peers', { kind: 'status', status: 502 });
    const res = await peersCall();
    expect(res.status).toBe(502);
    expect(res.text).toBe('502 Bad Gateway');
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(await rpcResult(node, '/ext/info', 'info.getNodeID')).toHaveProperty('nodeID');
    node.setFault('info.peers', undefined);
    expect((await peersCall()).status).toBe(200);
  });

  it('targets GET health routes by shorthand and by "METHOD path"', async () => {
    node.setFault('readiness', { kind: 'status', status: 500, body: 'boom' });
    node.setFault('GET /ext/health', { kind: 'status', status: 503, body: '{}', contentType: 'application/json' });
    const readiness = await request(node, { method: 'GET', path: '/ext/health/readiness' });
    expect([readiness.status, readiness.text]).toEqual([500, 'boom']);
    const health = await request(node, { method: 'GET', path: '/ext/health' });
    expect([health.status, health.text, health.headers['content-type']]).toEqual([503, '{}', 'application/json']);
    expect((await request(node, { method: 'GET', path: '/ext/health/liveness' })).status).toBe(200);
    node.clearFaults();
    expect((await request(node, { method: 'GET', path: '/ext/health/readiness' })).status).toBe(200);
  });

  it('hangs until the client times out, and stop() still completes', async () => {
    node.setFault('*', { kind: 'hang' });
    await expect(request(node, { method: 'GET', path: '/ext/health', timeoutMs: 150 })).rejects.toThrow('client timeout');
    // A hung request in flight must not block stop().
    const pending = request(node, { method: 'GET', path: '/ext/health' });
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await node.stop();
    expect(Date.now() - started).toBeLessThan(1000);
    await expect(pending).rejects.toThrow();
  });

  it('resets the connection mid-body', async () => {
    node.setFault('info.peers', { kind: 'reset' });
    await expect(peersCall()).rejects.toThrow();
    // fetch sees it as a failed body read.
    node.setFault('platform.getHeight', { kind: 'reset' });
    const viaFetch = fetch(`${node.url}/ext/bc/P`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'platform.getHeight' }),
    }).then((r) => r.text());
    await expect(viaFetch).rejects.toThrow();
  });

  it('serves a malformed body, and an rpc-error in each dialect', async () => {
    node.setFault('info.peers', { kind: 'body', body: '{"jsonrpc":"2.0","result":{"numPeers":' });
    const res = await peersCall();
    expect(res.status).toBe(200);
    expect(() => {
      JSON.parse(res.text);
    }).toThrow();

    node.setFault('info.getNodeID', { kind: 'rpc-error', code: -32000, message: 'something broke' });
    expect(await rpc(node, '/ext/info', 'info.getNodeID')).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'something broke', data: null },
      id: 1,
    });
    node.setFault('eth_blockNumber', { kind: 'rpc-error', code: -32603, message: 'internal' });
    expect(await rpc(node, '/ext/bc/C/rpc', 'eth_blockNumber', [])).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: 'internal' },
    });
  });

  it('delays and trickles a normal answer', async () => {
    node.setFault('info.getNodeVersion', { kind: 'delay', ms: 150 });
    let started = Date.now();
    expect(await rpcResult(node, '/ext/info', 'info.getNodeVersion')).toHaveProperty('version', 'avalanchego/1.14.2');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);

    node.setFault('info.getNodeVersion', { kind: 'trickle', bytesPerSecond: 1000 });
    started = Date.now();
    expect(await rpcResult(node, '/ext/info', 'info.getNodeVersion')).toHaveProperty('databaseVersion', 'v1.4.5');
    // ~270 bytes at 100 bytes per 100 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  });

  it('refuses connections after stop() and answers again on the same port after restart()', async () => {
    const port = node.port;
    await node.stop();
    const err = await request(node, { method: 'GET', path: '/ext/health' }).catch((e: unknown) => e);
    expect((err as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    await node.restart();
    expect(node.port).toBe(port);
    const res = await request(node, { method: 'GET', path: '/ext/health' });
    expect(res.status).toBe(200);
    // fetch (undici, pooled keep-alive sockets) also recovers.
    const viaFetch = await fetch(`${node.url}/ext/health/liveness`);
    expect(viaFetch.status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------
// Data: CB58, generators, scale
// ---------------------------------------------------------------------------------------------

describe('fake data', () => {
  it('round-trips CB58 and validates the fixture IDs', () => {
    expect(cb58Encode(new Uint8Array(32))).toBe('11111111111111111111111111111111LpoYY');
    expect(isCb58NodeId(FIXTURE_IDS.nodeId)).toBe(true);
    expect(isCb58Id(FIXTURE_IDS.l1SubnetId)).toBe(true);
    expect(isCb58NodeId('NodeID-notanid')).toBe(false);
    expect(isCb58Id(FIXTURE_IDS.nodeId.slice(7))).toBe(false); // 20 bytes, not 32
    expect(cb58Decode('2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByN')).toBeUndefined(); // bad checksum
  });

  it('hands out independent deep copies of the default state', () => {
    const a = defaultFakeState();
    const b = defaultFakeState();
    a.primaryValidators[0]?.validationRewardOwner?.addresses.push('x');
    a.heights.P = 1n;
    expect(b.primaryValidators[0]?.validationRewardOwner?.addresses).toHaveLength(1);
    expect(a.primaryValidators[0]?.delegationRewardOwner?.addresses).toHaveLength(1);
    expect(b.heights.P).toBe(23797323n);
  });

  it('generates deterministic, unique, valid validators and peers', () => {
    const a = generateValidators(300, { seed: 9, delegatorsPerValidator: 2 });
    expect(generateValidators(300, { seed: 9, delegatorsPerValidator: 2 })).toEqual(a);
    expect(generateValidators(300, { seed: 10 })[0]?.nodeId).not.toBe(a[0]?.nodeId);
    expect(new Set(a.map((v) => v.nodeId)).size).toBe(300);
    for (const v of a) {
      expect(isCb58NodeId(v.nodeId)).toBe(true);
      expect(isCb58Id(v.txId)).toBe(true);
      expect(v.delegators).toHaveLength(2);
      expect(v.endTime).toBeGreaterThan(v.startTime);
      expect(v.weight).toBeGreaterThanOrEqual(2000n * 1_000_000_000n);
    }
    const peers = generatePeers(
      500,
      3,
      a.map((v) => v.nodeId),
    );
    expect(
      generatePeers(
        500,
        3,
        a.map((v) => v.nodeId),
      ),
    ).toEqual(peers);
    expect(new Set(peers.map((p) => p.nodeId)).size).toBe(500);
    expect(peers[0]?.nodeId).toBe(a[0]?.nodeId);
    expect(new Set(peers.map((p) => p.version))).toContain('avalanchego/1.14.1');
  });

  it('serves mainnet-scale sets (1,800 validators, 2,000 peers)', async () => {
    const validators = generateValidators(1800, { delegatorsPerValidator: 1 });
    const node = await FakeNode.start({ state: { primaryValidators: validators, peers: generatePeers(2000) } });
    try {
      const vals = await rpcResult<{ validators: unknown[] }>(node, '/ext/bc/P', 'platform.getCurrentValidators', {});
      const peers = await rpcResult<{ numPeers: string; peers: unknown[] }>(node, '/ext/info', 'info.peers', { nodeIDs: [] });
      expect(vals.validators).toHaveLength(1800);
      expect(peers.numPeers).toBe('2000');
      expect(peers.peers).toHaveLength(2000);
      const filtered = await rpcResult<{ validators: Array<Record<string, unknown>> }>(node, '/ext/bc/P', 'platform.getCurrentValidators', {
        nodeIDs: [validators[1234]?.nodeId],
      });
      expect(filtered.validators[0]?.['delegators']).toHaveLength(1);
    } finally {
      await node.stop();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Demo node
// ---------------------------------------------------------------------------------------------

describe('demo node', () => {
  it('grows heights between ticks', async () => {
    const demo = await startDemoNode({ tickMs: 20, simSecondsPerTick: 4, seed: 7 });
    try {
      const height = async (p: string, m: string) => BigInt((await rpcResult<{ height: string }>(demo.node, p, m)).height);
      const p0 = await height('/ext/bc/P', 'platform.getHeight');
      const c0 = BigInt((await rpc(demo.node, '/ext/bc/C/rpc', 'eth_blockNumber', []))['result'] as string);
      const deadline = Date.now() + 3000;
      let p1 = p0;
      while (p1 === p0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 30));
        p1 = await height('/ext/bc/P', 'platform.getHeight');
      }
      expect(p1).toBeGreaterThan(p0);
      expect(demo.ticks).toBeGreaterThan(0);
      const c1 = BigInt((await rpc(demo.node, '/ext/bc/C/rpc', 'eth_blockNumber', []))['result'] as string);
      expect(c1).toBeGreaterThanOrEqual(c0);
      // The P health check follows the height.
      const health = JSON.parse((await request(demo.node, { method: 'GET', path: '/ext/health' })).text) as {
        checks: Record<string, { message: { engine: { consensus: { lastAcceptedHeight: number } } } }>;
      };
      expect(health.checks['P']?.message.engine.consensus.lastAcceptedHeight).toBeGreaterThan(Number(p0));
    } finally {
      await demo.stop();
    }
  });

  it('evolves deterministically for a seed: churn, flapping check, disconnects', async () => {
    // A tick interval of an hour: only explicit tick() calls advance these.
    const a = await startDemoNode({ tickMs: 3_600_000, seed: 42, simSecondsPerTick: 2 });
    const b = await startDemoNode({ tickMs: 3_600_000, seed: 42, simSecondsPerTick: 2 });
    const c = await startDemoNode({ tickMs: 3_600_000, seed: 43, simSecondsPerTick: 2 });
    try {
      const snapshot = (s: FakeNodeState) => ({
        heights: { ...s.heights },
        peers: s.peers.map((p) => `${p.nodeId}/${p.version}`),
        connected: s.primaryValidators.map((v) => v.connected),
        uptime: s.uptime,
        network: s.health['network']?.error ?? null,
      });
      const startPeers = new Set(a.node.state.peers.map((p) => p.nodeId));
      let sawFailure = false;
      let sawRecovery = false;
      let sawDisconnect = false;
      let sawNewPeer = false;
      let sawPeerLeave = false;
      const initiallyConnected = a.node.state.primaryValidators.filter((v) => v.connected).length;
      for (let i = 0; i < 300; i++) {
        a.tick();
        b.tick();
        c.tick();
        const failing = a.node.state.health['network']?.error !== undefined;
        if (failing) sawFailure = true;
        if (sawFailure && !failing) sawRecovery = true;
        if (a.node.state.primaryValidators.filter((v) => v.connected).length < initiallyConnected) sawDisconnect = true;
        const now = new Set(a.node.state.peers.map((p) => p.nodeId));
        if ([...now].some((id) => !startPeers.has(id))) sawNewPeer = true;
        if ([...startPeers].some((id) => !now.has(id))) sawPeerLeave = true;
      }
      expect(snapshot(a.node.state)).toEqual(snapshot(b.node.state));
      expect(snapshot(a.node.state)).not.toEqual(snapshot(c.node.state));
      expect(sawFailure && sawRecovery).toBe(true);
      expect(sawDisconnect).toBe(true);
      expect(sawNewPeer).toBe(true);
      expect(sawPeerLeave).toBe(true);
      const versions = new Set(a.node.state.peers.map((p) => p.version));
      expect(versions).toContain('avalanchego/1.14.1');
      expect(versions).toContain('avalanchego/1.14.2');
      // 300 ticks of 2 s at ~1 block per 2 s.
      expect(a.node.state.heights.P - 23797323n).toBeGreaterThan(200n);
      expect(a.node.state.heights.X - 5094088n).toBeLessThan(a.node.state.heights.P - 23797323n);
      // Uptime drifts but stays plausible.
      const uptime = a.node.state.uptime === 'computed' ? undefined : a.node.state.uptime;
      expect(uptime?.weightedAveragePercentage).toBeGreaterThanOrEqual(98.5);
      expect(uptime?.weightedAveragePercentage).not.toBe(99.7214);
    } finally {
      await Promise.all([a.stop(), b.stop(), c.stop()]);
    }
  });

  it('builds a demo state re-based on the current time', () => {
    const now = 1_800_000_000;
    const s = createDemoState(5, now, 10, 20);
    expect(s.primaryValidators).toHaveLength(12);
    expect(s.peers).toHaveLength(20);
    for (const v of s.primaryValidators) {
      expect(v.startTime).toBeLessThanOrEqual(now);
      expect(v.endTime).toBeGreaterThan(now);
    }
  });
});
