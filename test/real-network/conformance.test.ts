/**
 * The fakes proven against the real node (issue 41, point 3): every endpoint and JSON-RPC method the exporter
 * calls is asked of a real AvalancheGo (the local network of test/helpers/local-network.ts) and of the test fake
 * (test/fakes/fake-node.ts, which is the demo's node server) in the matching role: a validator, an RPC node, a
 * partial-sync node. Their answers must agree on the HTTP status, the headers AvalancheGo sets, and the shape of
 * the body (test/helpers/wire-shape.ts: keys and their order, value types, number encodings); error codes and
 * texts must agree word for word where both are asked the same question. The worlds differ (a five-node local
 * network against a mainnet-like fixture), so values are not compared, only how they are written.
 *
 * The list of questions is checked against what the exporter really sends: a daemon is run against the fake and
 * every distinct call it makes must be one asked here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_IDS } from '../fakes/fake-data.js';
import { FakeNode, type FakeNodeState } from '../fakes/fake-node.js';
import { defaultFakeState } from '../../src/demo/fixture-world.js';
import { partialSyncMode } from '../../src/demo/modes.js';
import { restartBootstrapping } from '../fakes/real-modes.js';
import { startTestDaemon, waitUntilAllUp } from '../helpers/daemon.js';
import { useLocalNetwork, type LocalNode } from '../helpers/local-network.js';
import {
  ask,
  expectSameAnswer,
  HEALTH_OPTIONAL_FOR_VALIDATOR,
  statusAndHeaderDifferences,
  type Answer,
  type Question as AnyQuestion,
  type Role as AnyRole,
} from '../helpers/conformance.js';
import { compareShapes, type ShapeDifference } from '../helpers/wire-shape.js';

const network = useLocalNetwork('conformance');

type Role = Exclude<AnyRole, 'l1-validator'>;

interface RealIds {
  self: string;
  xChainId: string;
}

/** A question of this file: asked of the primary network's roles, its params made from the real world's ids. */
type Question = AnyQuestion<RealIds> & { role: Role };

/** An id that names nothing on either network. */
const NOWHERE = '2h2fuXTjGoYJCyL4JWkUjKMYsL9YWM6zDxYEKDzsU5ukFoKo91';
const PRIMARY = '11111111111111111111111111111111LpoYY';

function questions(): Question[] {
  const rpc = (role: Role, path: string, rpcMethod: string, params: Question['params'], more: Partial<Question> = {}): Question => ({
    name: `${role}: ${rpcMethod}${more.name ? ` (${more.name})` : ''}`,
    role,
    httpMethod: 'POST',
    path,
    rpcMethod,
    params,
    ...more,
  });
  const get = (role: Role, path: string): Question => ({ name: `${role}: GET ${path}`, role, httpMethod: 'GET', path, sameQuestion: true });
  const none = () => ({});
  const qs: Question[] = [];
  for (const role of ['validator', 'rpc', 'partial-sync'] as const) {
    qs.push(
      get(role, '/ext/health'),
      get(role, '/ext/health/readiness'),
      get(role, '/ext/health/liveness'),
      get(role, `/ext/health?tag=${PRIMARY}`),
      get(role, '/ext/health?tag=application'),
      rpc(role, '/ext/info', 'info.getNetworkID', none),
      rpc(role, '/ext/info', 'info.getNodeID', none),
      rpc(role, '/ext/info', 'info.getNodeVersion', none),
      rpc(role, '/ext/info', 'info.getNetworkName', none),
      rpc(role, '/ext/info', 'info.upgrades', none),
      rpc(role, '/ext/info', 'info.peers', none),
      rpc(role, '/ext/info', 'info.uptime', none, { sameQuestion: role !== 'validator' }),
      rpc(role, '/ext/info', 'info.getNodeIP', none),
      rpc(role, '/ext/info', 'info.isBootstrapped', () => ({ chain: 'X' }), { sameQuestion: true }),
      rpc(role, '/ext/info', 'info.isBootstrapped', () => ({ chain: 'Q' }), { name: 'unknown chain', sameQuestion: true }),
      rpc(role, '/ext/info', 'info.getBlockchainID', () => ({ alias: 'X' })),
      rpc(role, '/ext/info', 'info.getFoo', none, { name: 'unknown method', sameQuestion: true }),
      rpc(role, '/ext/P', 'platform.getBlockchains', none),
      rpc(role, '/ext/P', 'platform.getBlockchainStatus', (r) => ({ blockchainID: r.xChainId }), { fakeParams: { blockchainID: FIXTURE_IDS.l1ChainId } }),
      rpc(role, '/ext/P', 'platform.getBlockchainStatus', () => ({ blockchainID: NOWHERE }), { name: 'unknown chain', sameQuestion: true }),
      rpc(role, '/ext/bc/P', 'platform.getHeight', none),
      rpc(role, '/ext/bc/P', 'platform.getValidatorFeeState', none),
      rpc(role, '/ext/bc/P', 'platform.getCurrentValidators', none),
      rpc(role, '/ext/bc/P', 'platform.getCurrentValidators', (r) => ({ nodeIDs: [r.self] }), { name: 'its own id', fakeParams: undefined }),
      rpc(role, '/ext/bc/P', 'platform.getCurrentValidators', () => ({ subnetID: NOWHERE }), { name: 'a subnet with no validators', sameQuestion: true }),
      rpc(role, '/ext/bc/P', 'platform.getL1Validator', () => ({ validationID: NOWHERE }), { name: 'unknown validation', sameQuestion: true }),
      rpc(role, '/ext/bc/X', 'avm.getHeight', none),
      rpc(role, '/ext/bc/C/rpc', 'eth_blockNumber', () => []),
      rpc(role, '/ext/bc/C/rpc', 'eth_chainId', () => []),
      rpc(role, '/ext/bc/C/rpc', 'eth_getBalance', () => ['0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC', 'latest'], { sameQuestion: true }),
      rpc(role, '/ext/bc/C/rpc', 'eth_foo', () => [], { name: 'unknown method', sameQuestion: true }),
    );
  }
  return qs;
}

/** The fixture world in each role, as the fakes' users build it. */
function fakeWorld(role: Role): FakeNodeState {
  const s = defaultFakeState();
  if (role === 'partial-sync') return partialSyncMode(s);
  if (role === 'rpc') {
    s.primaryValidators = s.primaryValidators.filter((v) => v.nodeId !== s.nodeId);
    s.uptime = null;
  }
  return s;
}

const fakes = new Map<Role, FakeNode>();
let realIds: RealIds;

beforeAll(async () => {
  for (const role of ['validator', 'rpc', 'partial-sync'] as const) fakes.set(role, await FakeNode.start({ state: fakeWorld(role) }));
  const v = network().validators[0] as LocalNode;
  const x = await ask(v.uri, { name: '', role: 'validator', httpMethod: 'POST', path: '/ext/info', rpcMethod: 'info.getBlockchainID' }, { alias: 'X' });
  realIds = { self: v.nodeId, xChainId: (x.body as { result: { blockchainID: string } }).result.blockchainID };
  // So that every chain has accepted a block (a fresh network's X and C are at height 0).
  await network().transfer(v);
}, 180_000);

afterAll(async () => {
  for (const f of fakes.values()) await f.stop();
});

function realNode(role: Role): LocalNode {
  const n = network();
  return role === 'validator' ? (n.validators[0] as LocalNode) : role === 'rpc' ? n.rpc : n.partialSync;
}

describe('the fake node answers as the real AvalancheGo v1.14.2 does', () => {
  for (const q of questions()) {
    it(q.name + (q.httpMethod === 'POST' ? ` on ${q.path}` : ''), async () => {
      const node = realNode(q.role);
      const fake = fakes.get(q.role) as FakeNode;
      const ids = q.role === 'validator' ? realIds : { ...realIds, self: node.nodeId };
      const params = q.params?.(ids);
      const fakeParams =
        q.rpcMethod === 'platform.getCurrentValidators' && q.name.includes('its own id') ? { nodeIDs: [fake.state.nodeId] } : (q.fakeParams ?? params);
      const real = await ask(node.uri, q, params);
      const answer = await ask(fake.url, { ...q, path: q.fakePath ?? q.path }, fakeParams);
      expectSameAnswer(q, real, answer);
    });
  }
});

describe('a node still bootstrapping answers as the real one does', () => {
  /**
   * The real side: a node whose only bootstrapper is a closed port, so its chains never finish bootstrapping.
   * The fake side: the fixture world as a node just restarted, bootstrapping P, X and C (test/fakes/real-modes.ts
   * restartBootstrapping), an RPC node's world since the stuck node validates nothing.
   */
  let stuck: LocalNode;
  let fake: FakeNode;
  beforeAll(async () => {
    stuck = await network().startStuckNode();
    fake = await FakeNode.start({ state: restartBootstrapping(fakeWorld('rpc')) });
  }, 120_000);
  afterAll(async () => {
    await fake.stop();
  });
  const q = (path: string, rpcMethod: string, params: unknown, name = rpcMethod): Question & { fixed: unknown } => ({
    name,
    role: 'rpc',
    httpMethod: 'POST',
    path,
    rpcMethod,
    sameQuestion: true,
    fixed: params,
  });
  const questionsWhileBootstrapping = [
    q('/ext/bc/P', 'platform.getHeight', {}, "the P-Chain's API: 503"),
    q('/ext/bc/P', 'platform.getCurrentValidators', {}, "the P-Chain's validators: 503"),
    q('/ext/P', 'platform.getBlockchainStatus', { blockchainID: 'X' }, 'platform.getBlockchainStatus: 503, a P-Chain API'),
    // Not created before the P-Chain has bootstrapped (chains/manager.go), so not routed: 404.
    q('/ext/bc/X', 'avm.getHeight', {}, "the X-Chain's API: 404, the chain not created yet"),
    q('/ext/bc/C/rpc', 'eth_blockNumber', [], "the C-Chain's API: 404, the chain not created yet"),
    q('/ext/info', 'info.isBootstrapped', { chain: 'P' }, 'info.isBootstrapped says false'),
    // chains/manager.go IsBootstrapped: false for a chain not created; the alias X resolves from start-up (node/node.go initChainAliases).
    q('/ext/info', 'info.isBootstrapped', { chain: 'X' }, 'info.isBootstrapped says false for X, not created yet'),
  ];
  for (const question of questionsWhileBootstrapping) {
    it(question.name, async () => {
      const real = await ask(stuck.uri, question, question.fixed);
      const answer = await ask(fake.url, question, question.fixed);
      expectSameAnswer(question, real, answer);
    });
  }

  it("info.isBootstrapped by the X-Chain's id: no such chain yet (its id is aliased when the chain is created)", async () => {
    const question = q('/ext/info', 'info.isBootstrapped', {}, 'by id');
    const real = await ask(stuck.uri, question, { chain: realIds.xChainId });
    const answer = await ask(fake.url, question, { chain: fake.state.chainIds.X });
    expectSameAnswer({ ...question, sameQuestion: false }, real, answer);
    const err = (a: Answer) => (a.body as { error?: { code: number; message: string } }).error;
    expect(err(real)).toEqual({ code: -32000, message: `there is no chain with alias/ID '${realIds.xChainId}'`, data: null });
    expect(err(answer)).toEqual({ code: -32000, message: `there is no chain with alias/ID '${fake.state.chainIds.X}'`, data: null });
  });

  /**
   * The report once the health worker has run every check: until it first runs one, the check reads
   * `"error": "not yet run"` with the zero timestamp `0001-01-01T00:00:00Z` (api/health/result.go,
   * worker.go RegisterCheck), and P's check is registered only when the P-Chain is created, after the rest.
   */
  async function settled(get: Question): Promise<Answer> {
    let real = await ask(stuck.uri, get, undefined);
    for (let i = 0; i < 40 && real.text.includes('not yet run'); i++) {
      await new Promise((r) => setTimeout(r, 250));
      real = await ask(stuck.uri, get, undefined);
    }
    expect(real.text).not.toContain('not yet run');
    return real;
  }

  /**
   * Keys the stuck node writes otherwise than the fake's world for reasons other than bootstrapping, each written
   * only when set: the failing state of the checks that fail because it reaches no peer at all (its only
   * bootstrapper is a closed port; api/health/result.go: `error`, `contiguousFailures` and `timeOfFirstFailure`
   * are omitempty), the network check's message times, and what only a node running past its grace period writes
   * (it has just started). The `bootstrapped` check, the one that says bootstrapping, is not among them.
   */
  const STUCK_OPTIONAL: Record<string, string> = {
    ...HEALTH_OPTIONAL_FOR_VALIDATOR,
    ...Object.fromEntries(
      ['P', 'network'].flatMap((check) =>
        ['error', 'contiguousFailures', 'timeOfFirstFailure'].map((key) => [
          `checks.${check}.${key}`,
          `api/health/result.go: ${key} omitempty; the stuck node is connected to no peer (network/network.go, snow/networking/handler/health.go)`,
        ]),
      ),
    ),
    'checks.network.message.timeSinceLastMsgReceived': 'network/network.go HealthCheck: written once a message was received; the stuck node has received none',
    'checks.network.message.timeSinceLastMsgSent': 'network/network.go HealthCheck: written once a message was sent; the stuck node has sent none',
  };

  type Report = { checks: Record<string, { message?: unknown; error?: string }>; healthy: boolean };

  /** Status, headers and the report's shape: the same check names in the same order, each check's shape alike. */
  function stuckHealthDifferences(real: Answer, fake: Answer): ShapeDifference[] {
    const diffs = statusAndHeaderDifferences(real, fake);
    const r = real.body as Report;
    const f = fake.body as Report;
    diffs.push(...compareShapes({ ...r, checks: {} }, { ...f, checks: {} }));
    const names = (o: Report) => Object.keys(o.checks).join(', ');
    if (names(r) !== names(f)) diffs.push({ path: 'checks (names, in order)', real: names(r), fake: names(f) });
    for (const k of Object.keys(r.checks))
      if (k in f.checks) diffs.push(...compareShapes(r.checks[k], f.checks[k], { optional: STUCK_OPTIONAL }, `checks.${k}`));
    return diffs;
  }

  for (const path of ['/ext/health', `/ext/health?tag=${PRIMARY}`]) {
    it(`GET ${path}: 503, no X or C check, P's check with consensus {}, the primary network bootstrapping`, { timeout: 30_000 }, async () => {
      const get: Question = { name: path, role: 'rpc', httpMethod: 'GET', path, sameQuestion: true };
      const real = await settled(get);
      const answer = await ask(fake.url, get, undefined);
      for (const a of [real, answer]) {
        const report = a.body as Report;
        expect(a.status).toBe(503);
        // chains/manager.go: X, C and any L1 chain are created, and their checks registered, only once P has bootstrapped.
        expect(Object.keys(report.checks).filter((k) => k === 'X' || k === 'C' || /^[1-9A-HJ-NP-Za-km-z]{40,}$/.test(k))).toEqual([]);
        // snow/engine/snowman/bootstrap/bootstrapper.go HealthCheck: the bootstrapper's part reads `consensus: {}`.
        expect((report.checks['P']?.message as { engine?: { consensus?: unknown } } | undefined)?.engine?.consensus).toEqual({});
        expect(report.checks['bootstrapped']).toMatchObject({ error: 'subnets not bootstrapped' });
        expect(report.checks['bootstrapped']?.message).toContain(PRIMARY);
      }
      const listed = stuckHealthDifferences(real, answer)
        .map((d) => `${d.path}: real ${d.real}, fake ${d.fake}`)
        .join('\n');
      expect(listed, `real: ${real.text.slice(0, 2500)}\nfake: ${answer.text.slice(0, 2500)}`).toBe('');
    });
  }

  it('GET /ext/health/readiness: 503, bootstrapped failing', { timeout: 30_000 }, async () => {
    const get: Question = { name: 'readiness', role: 'rpc', httpMethod: 'GET', path: '/ext/health/readiness', sameQuestion: true };
    const real = await settled(get);
    const answer = await ask(fake.url, get, undefined);
    expect(real.status).toBe(503);
    expectSameAnswer(get, real, answer);
  });
});

describe('the questions are the ones the exporter asks', () => {
  it('every distinct call the daemon makes to a node is one of them', async () => {
    const fake = await FakeNode.start();
    const { daemon } = await startTestDaemon({ nodes: [{ name: 'fake', url: fake.url, watch: { subnet_ids: [FIXTURE_IDS.l1SubnetId] } }] });
    try {
      await waitUntilAllUp(daemon);
      const asked = new Set(questions().map((q) => `${q.httpMethod} ${q.path.replace(/\?tag=.*$/, '?tag=')} ${q.rpcMethod ?? ''}`));
      const made = new Set(fake.calls.map((c) => `${c.httpMethod} ${c.path}${c.query.replace(/=.*$/, '=')} ${c.rpcMethod ?? ''}`));
      // Asked only of an L1 chain whose VM serves a validators API (Subnet-EVM's); the local network's L1 runs xsvm,
      // which serves none (test/real-network/l1.test.ts asks, and test/avalanchego/go.mod says why not Subnet-EVM).
      const l1Only = [...made].filter((m) => m.includes('/validators validators.getCurrentValidators'));
      expect(l1Only.length).toBeLessThanOrEqual(1);
      expect([...made].filter((m) => !asked.has(m) && !l1Only.includes(m))).toEqual([]);
    } finally {
      await daemon.stop();
      await fake.stop();
    }
  });
});
