/**
 * Issue #7, point 3: is the network ready for the next upgrade, and are we?
 * Connected stake per node version (info.peers versions weighted by the
 * primary-network validator set), the version most stake runs, whether this
 * node is behind it (numerically, not by string), and the inputs of
 * AvaxNodeUpgradeNotReady. The alert itself is tested with promtool in
 * alerts/tests/readiness.test.yml.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeNode } from './fakes/fake-node.js';
import { FIXTURE_IDS, defaultFakeState, fixtureValidatorFor } from './fakes/fake-data.js';
import { HttpTransport } from '../src/http/transport.js';
import { JsonRpcClient } from '../src/http/json-rpc.js';
import { collectPeers } from '../src/sources/node/peers/collect.js';
import { compareNodeVersions, parseNodeVersion } from '../src/sources/node/peers/node-version.js';
import {
  STAKE_MAX_AGE_ROUNDS,
  STAKE_RETRY_ROUNDS,
  peersSource,
  stakeEntrySchema,
  stakeMapFrom,
  stakeRefreshDue,
  stakeWeightedObservedUptime,
  versionStakeFrom,
  type PeersValue,
} from '../src/sources/node/peers/index.js';
import { SLOW_REFRESH_ROUNDS, type KnownNodeFacts, type PollContext } from '../src/sources/node/source.js';
import { NetworkShared } from '../src/sources/node/network-shared.js';
import type { Sample } from '../src/metrics/metric-defs.js';
import { fixtureResult } from './helpers/fixtures.js';
import { eventually, perTestResources, scrape, seriesOf, startTestDaemon, valueOf, waitUntilAllUp } from './helpers/daemon.js';
import { testHandle } from '../src/daemon.js';

const AVAX = 1_000_000_000n;
const SELF = FIXTURE_IDS.nodeId;
// The three fixture peers (node.info.peers.json): two on 1.14.2, one on 1.14.1.
const PEER_A = 'NodeID-8PYXX47kqLDe2wD4oPbvRRchcnSzMA4J4'; // avalanchego/1.14.2
const PEER_B = 'NodeID-C14fr1n8EYNKyDfYixJ3rxSAVqTY3a8BP'; // avalanchego/1.14.1
const PEER_C = 'NodeID-LPbcSMGJ4yocxYxvS2kBJ6umWeeFbctYZ'; // avalanchego/1.14.2
// The node itself validates with 2,000 AVAX plus a 25 AVAX delegation (fixture).
const SELF_STAKE = 2025n;

/**
 * Gives the fixture peers stake: the one peer on 1.14.1 holds more stake
 * (6,000 AVAX) than the two on 1.14.2 together (3,000), so the version most
 * peers run and the version most stake runs differ.
 */
function stakePeers(node: FakeNode): void {
  node.state.primaryValidators.push(
    fixtureValidatorFor(PEER_A, 2000n * AVAX),
    fixtureValidatorFor(PEER_B, 5000n * AVAX, 1000n * AVAX),
    fixtureValidatorFor(PEER_C, 1000n * AVAX),
  );
}

function line(s: Sample): string {
  return `${s.name}{${Object.entries(s.labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')}} ${s.value}`;
}

describe('version order (pure)', () => {
  it('compares major.minor.patch numerically, not as strings', () => {
    expect(compareNodeVersions('avalanchego/1.9.0', 'avalanchego/1.10.0')).toBeLessThan(0);
    expect(compareNodeVersions('avalanchego/1.13.0', 'avalanchego/1.14.0')).toBeLessThan(0);
    expect(compareNodeVersions('avalanchego/1.14.2', 'avalanchego/1.14.1')).toBeGreaterThan(0);
    expect(compareNodeVersions('avalanchego/1.14.2', 'avalanchego/1.14.2')).toBe(0);
    expect(compareNodeVersions('avalanchego/2.0.0', 'avalanchego/1.99.99')).toBeGreaterThan(0);
  });

  it('reads the old application name and ignores a pre-release suffix; unreadable versions are not compared', () => {
    expect(parseNodeVersion('avalanche/1.9.0')).toEqual({ major: 1, minor: 9, patch: 0 });
    expect(parseNodeVersion('avalanchego/1.15.0-fuji-rc.4')).toEqual({ major: 1, minor: 15, patch: 0 });
    expect(compareNodeVersions('avalanche/1.9.16', 'avalanchego/1.10.0')).toBeLessThan(0);
    expect(parseNodeVersion('avalanchego/latest')).toBeUndefined();
    expect(parseNodeVersion('')).toBeUndefined();
    expect(compareNodeVersions('avalanchego/1.14.2', 'garbage')).toBeUndefined();
  });
});

describe('connected stake per version (pure)', () => {
  const stake = new Map<string, bigint>([
    [PEER_A, 2000n * AVAX],
    [PEER_B, 6000n * AVAX],
    [PEER_C, 1000n * AVAX],
    [SELF, SELF_STAKE * AVAX],
  ]);
  const peers = [
    { nodeID: PEER_A, version: 'avalanchego/1.14.2' },
    { nodeID: PEER_B, version: 'avalanchego/1.14.1' },
    { nodeID: PEER_C, version: 'avalanchego/1.14.2' },
    // Connected but not a validator: no stake, not counted.
    { nodeID: 'NodeID-NotAValidator', version: 'avalanchego/1.13.0' },
  ];

  it('stake is own weight plus delegated weight, from the fixture validator set', () => {
    const entries = (
      fixtureResult('node.platform.getCurrentValidators.primary.json', 'all-validators-no-delegators-field') as { validators: unknown[] }
    ).validators.map((v) => stakeEntrySchema.parse(v));
    const map = stakeMapFrom(entries);
    expect(map.get(SELF)).toBe(2000n * AVAX + 25n * AVAX);
    expect(map.get(FIXTURE_IDS.disconnectedValidatorNodeId)).toBe(3000n * AVAX);
    expect(map.size).toBe(2);
  });

  it('weights every connected validator and the node itself; the majority is by stake, not by peer count', () => {
    const v = versionStakeFrom(peers, stake, { nodeId: SELF, version: 'avalanchego/1.14.2' });
    const total = Number(2000n + 6000n + 1000n + SELF_STAKE);
    expect(v?.ratioByVersion['avalanchego/1.14.1']).toBeCloseTo(6000 / total, 12);
    expect(v?.ratioByVersion['avalanchego/1.14.2']).toBeCloseTo((2000 + 1000 + Number(SELF_STAKE)) / total, 12);
    expect(Object.keys(v?.ratioByVersion ?? {}).sort()).toEqual(['avalanchego/1.14.1', 'avalanchego/1.14.2']);
    expect(v?.majorityVersion).toBe('avalanchego/1.14.1');
    // Ahead of the majority is not behind.
    expect(v?.behindMajority).toBe(false);
  });

  it('a node on an older release than the stake majority is behind', () => {
    const v = versionStakeFrom(peers, stake, { nodeId: SELF, version: 'avalanchego/1.13.9' });
    expect(v?.majorityVersion).toBe('avalanchego/1.14.1');
    expect(v?.behindMajority).toBe(true);
    expect(v?.ratioByVersion['avalanchego/1.13.9']).toBeCloseTo(Number(SELF_STAKE) / Number(2000n + 6000n + 1000n + SELF_STAKE), 12);
  });

  it('a node that is not a validator adds no stake but is still compared; an unknown own version is not compared', () => {
    const v = versionStakeFrom(peers, stake, { nodeId: 'NodeID-Rpc', version: 'avalanchego/1.14.0' });
    expect(v?.ratioByVersion['avalanchego/1.14.0']).toBeUndefined();
    expect(v?.behindMajority).toBe(true);
    const unknown = versionStakeFrom(peers, stake, undefined);
    expect(unknown?.majorityVersion).toBe('avalanchego/1.14.1');
    expect(unknown?.behindMajority).toBeUndefined();
  });

  it('a tie goes to the newer version; no connected stake gives no view at all', () => {
    const tie = versionStakeFrom(
      [
        { nodeID: 'NodeID-a', version: 'avalanchego/1.14.1' },
        { nodeID: 'NodeID-b', version: 'avalanchego/1.14.2' },
      ],
      new Map([
        ['NodeID-a', 5n],
        ['NodeID-b', 5n],
      ]),
      { nodeId: SELF, version: 'avalanchego/1.14.1' },
    );
    expect(tie?.majorityVersion).toBe('avalanchego/1.14.2');
    expect(tie?.behindMajority).toBe(true);
    expect(versionStakeFrom(peers, new Map(), { nodeId: SELF, version: 'avalanchego/1.14.2' })).toBeUndefined();
  });

  it('the stake map is refreshed every SLOW_REFRESH_ROUNDS rounds, sooner after a failure, and at once by a new poller', () => {
    expect(stakeRefreshDue(0, undefined)).toBe(true);
    expect(stakeRefreshDue(1, { round: 0, ok: true })).toBe(false);
    expect(stakeRefreshDue(SLOW_REFRESH_ROUNDS - 1, { round: 0, ok: true })).toBe(false);
    expect(stakeRefreshDue(SLOW_REFRESH_ROUNDS, { round: 0, ok: true })).toBe(true);
    expect(stakeRefreshDue(STAKE_RETRY_ROUNDS - 1, { round: 0, ok: false })).toBe(false);
    expect(stakeRefreshDue(STAKE_RETRY_ROUNDS, { round: 0, ok: false })).toBe(true);
    expect(stakeRefreshDue(3, { round: 40, ok: true })).toBe(true);
  });

  it('the collector exports the shares, the majority as an _info series and the behind flag', () => {
    const value: PeersValue = {
      numPeers: 3,
      byVersion: {},
      benchedByChain: {},
      versionStake: { ratioByVersion: { 'avalanchego/1.14.1': 0.6, 'avalanchego/1.14.2': 0.4 }, majorityVersion: 'avalanchego/1.14.1', behindMajority: true },
    };
    expect(collectPeers(value, 'n1').map(line)).toEqual([
      'avax_node_peers{node="n1"} 3',
      'avax_network_stake_by_version_ratio{node="n1",version="avalanchego/1.14.1"} 0.6',
      'avax_network_stake_by_version_ratio{node="n1",version="avalanchego/1.14.2"} 0.4',
      'avax_network_stake_majority_version_info{node="n1",version="avalanchego/1.14.1"} 1',
      'avax_node_version_behind_stake_majority{node="n1"} 1',
    ]);
    const { behindMajority: _b, ...withoutOwn } = value.versionStake ?? { ratioByVersion: {}, majorityVersion: '' };
    const lines = collectPeers({ ...value, versionStake: withoutOwn }, 'n1').map(line);
    expect(lines.some((l) => l.startsWith('avax_node_version_behind_stake_majority'))).toBe(false);
    expect(collectPeers({ numPeers: 0, byVersion: {}, benchedByChain: {} }, 'n1').map(line)).toEqual(['avax_node_peers{node="n1"} 0']);
  });
});

describe('uptime as the connected stake sees the node (pure)', () => {
  it('weights each validator peer by its stake; peers without stake or report count nothing', () => {
    const stake = new Map([
      ['A', 6_000n],
      ['B', 3_000n],
      ['C', 1_000n],
    ]);
    const peers = [
      { nodeID: 'A', observedUptime: 90 },
      { nodeID: 'B', observedUptime: 60 },
      { nodeID: 'C', observedUptime: 100 },
      { nodeID: 'not-a-validator', observedUptime: 0 },
      { nodeID: 'D' },
    ];
    // Sorted by uptime: B 0.6 (30 % of stake), A 0.9 (to 90 %), C 1.0 (to 100 %). By peer count the median would be 0.9 too,
    // but the low quantile differs: one peer in four reports 0 (a non-validator), no stake does.
    expect(stakeWeightedObservedUptime(peers, stake, [0.1, 0.3, 0.31, 0.5, 0.9, 0.95])).toEqual([
      { quantile: 0.1, ratio: 0.6 },
      { quantile: 0.3, ratio: 0.6 },
      { quantile: 0.31, ratio: 0.9 },
      { quantile: 0.5, ratio: 0.9 },
      { quantile: 0.9, ratio: 0.9 },
      { quantile: 0.95, ratio: 1 },
    ]);
    expect(stakeWeightedObservedUptime([{ nodeID: 'X', observedUptime: 80 }], stake, [0.5])).toBeUndefined();
  });

  it('is exported per node next to the unweighted view', async () => {
    const node = await FakeNode.start();
    try {
      stakePeers(node);
      const { daemon } = await startTestDaemon({ nodes: [{ name: 'n', url: node.url }] });
      try {
        await waitUntilAllUp(daemon);
        await eventually(async () => seriesOf(await scrape(daemon), 'avax_node_stake_observed_uptime_ratio', { node: 'n' }).length === 3);
        const text = await scrape(daemon);
        for (const q of ['0.1', '0.5', '0.9']) {
          const v = valueOf(text, 'avax_node_stake_observed_uptime_ratio', { node: 'n', stake_quantile: q });
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThanOrEqual(1);
        }
        expect(seriesOf(text, 'avax_node_peers_observed_uptime_ratio', { node: 'n' })).toHaveLength(3);
      } finally {
        await daemon.stop();
      }
    } finally {
      await node.stop();
    }
  });
});

describe('NetworkShared', () => {
  it('serves one fetch to concurrent and later askers until it is too old, and forgets a failure', async () => {
    let maxAge = 1_000;
    const shared = new NetworkShared(() => maxAge);
    let fetches = 0;
    const fetch = () => Promise.resolve(++fetches);
    const [x, y] = await Promise.all([shared.get('k', fetch, 0), shared.get('k', fetch, 10)]);
    expect([x, y, fetches]).toEqual([1, 1, 1]);
    expect(await shared.get('k', fetch, 999)).toBe(1);
    expect(await shared.get('k', fetch, 1_000)).toBe(2); // too old: fetched again
    expect(await shared.get('other', fetch, 1_000)).toBe(3); // keys apart
    maxAge = 10; // a reload's shorter interval applies at once
    expect(await shared.get('k', fetch, 1_020)).toBe(4);
    await expect(shared.get('bad', () => Promise.reject(new Error('down')), 2_000)).rejects.toThrow('down');
    expect(await shared.get('bad', fetch, 2_001)).toBe(5);
  });
});

describe('the peers source against a fake node (poll rounds driven by hand)', () => {
  let node: FakeNode;
  let transport: HttpTransport;
  let rpc: JsonRpcClient;

  beforeAll(async () => {
    node = await FakeNode.start();
    transport = new HttpTransport();
    rpc = new JsonRpcClient(transport, node.url);
  });
  afterAll(async () => {
    await node.stop();
    await transport.close();
  });
  afterEach(() => {
    node.clearFaults();
    node.clearCalls();
    node.state = defaultFakeState();
  });

  function ctx(round: number, known: KnownNodeFacts = { nodeId: SELF, version: 'avalanchego/1.14.2' }): PollContext {
    const ms = 3_000;
    const deadline = { signal: AbortSignal.timeout(ms), at: Date.now() + ms };
    return {
      node: { name: 'n', url: node.url, headers: {}, secretHeaders: [], watch: { nodeIds: [], allValidators: false, subnetIds: [], maxValidators: 5_000 } },
      rpc,
      get: (path) => transport.send({ url: node.url + path, method: 'GET', signal: deadline.signal }),
      deadline,
      known,
      round,
    };
  }
  const calls = (method: string) => node.calls.filter((c) => c.rpcMethod === method);

  it('asks info.peers every round and the whole validator set only every SLOW_REFRESH_ROUNDS rounds, keeping the stake in between', async () => {
    stakePeers(node);
    const r0 = await peersSource.poll(ctx(0), undefined);
    expect(r0.versionStake?.majorityVersion).toBe('avalanchego/1.14.1');
    expect(calls('platform.getCurrentValidators').map((c) => JSON.stringify(c.params))).toEqual(['{}']);

    // The 1.14.1 validator loses most of its stake; the map in hand is still the old one.
    const b = node.state.primaryValidators.find((v) => v.nodeId === PEER_B);
    if (!b) throw new Error('no stake for peer B');
    b.weight = 10n * AVAX;
    b.delegators = [];
    let prev = r0;
    for (let round = 1; round < SLOW_REFRESH_ROUNDS; round++) prev = await peersSource.poll(ctx(round), prev);
    expect(calls('info.peers')).toHaveLength(SLOW_REFRESH_ROUNDS);
    expect(calls('platform.getCurrentValidators')).toHaveLength(1);
    expect(prev.versionStake?.majorityVersion).toBe('avalanchego/1.14.1');

    const r20 = await peersSource.poll(ctx(SLOW_REFRESH_ROUNDS), prev);
    expect(calls('platform.getCurrentValidators')).toHaveLength(2);
    expect(r20.versionStake?.majorityVersion).toBe('avalanchego/1.14.2');
    expect(r20.versionStake?.ratioByVersion['avalanchego/1.14.1']).toBeCloseTo(10 / (2000 + 10 + 1000 + Number(SELF_STAKE)), 12);
  });

  it('a validator set that cannot be fetched leaves the peer counts alone and is asked again after STAKE_RETRY_ROUNDS', async () => {
    stakePeers(node);
    node.setFault('platform.getCurrentValidators', { kind: 'rpc-error', code: -32000, message: 'boom' });
    const r0 = await peersSource.poll(ctx(0), undefined);
    expect(r0.numPeers).toBe(3);
    expect(r0.byVersion).toEqual({ 'avalanchego/1.14.2': 2, 'avalanchego/1.14.1': 1 });
    expect(r0.versionStake).toBeUndefined();
    const r1 = await peersSource.poll(ctx(1), r0);
    expect(calls('platform.getCurrentValidators')).toHaveLength(1);
    node.clearFaults();
    const r4 = await peersSource.poll(ctx(STAKE_RETRY_ROUNDS - 1), r1);
    expect(r4.versionStake).toBeUndefined();
    const r5 = await peersSource.poll(ctx(STAKE_RETRY_ROUNDS), r4);
    expect(calls('platform.getCurrentValidators')).toHaveLength(2);
    expect(r5.versionStake?.behindMajority).toBe(false);
  });

  it('keeps a stake map through failed refreshes for STAKE_MAX_AGE_ROUNDS rounds, then drops it rather than show an old network', async () => {
    stakePeers(node);
    const r0 = await peersSource.poll(ctx(0), undefined);
    node.setFault('platform.getCurrentValidators', { kind: 'status', status: 404 });
    const r20 = await peersSource.poll(ctx(SLOW_REFRESH_ROUNDS), r0);
    expect(r20.versionStake?.majorityVersion).toBe('avalanchego/1.14.1');
    const atLimit = await peersSource.poll(ctx(STAKE_MAX_AGE_ROUNDS), r20);
    expect(atLimit.versionStake?.majorityVersion).toBe('avalanchego/1.14.1');
    const past = await peersSource.poll(ctx(STAKE_MAX_AGE_ROUNDS + 1), atLimit);
    expect(past.versionStake).toBeUndefined();
    expect(past.numPeers).toBe(3);
  });

  it('before the node has told its own version, the node is neither counted nor compared', async () => {
    stakePeers(node);
    const v = await peersSource.poll(ctx(0, { nodeId: SELF }), undefined);
    expect(v.versionStake?.ratioByVersion['avalanchego/1.14.1']).toBeCloseTo(6000 / 9000, 12);
    expect(v.versionStake?.behindMajority).toBeUndefined();
  });
});

describe('through the daemon', () => {
  const { fakeNode, daemonFor } = perTestResources();

  it("exports each version's share of connected stake, the stake majority and whether the node is behind it", async () => {
    const ahead = await fakeNode();
    stakePeers(ahead);
    const behind = await fakeNode();
    stakePeers(behind);
    behind.state.version = 'avalanchego/1.14.0';
    // An upgrade three days out: with `behind`, what AvaxNodeUpgradeNotReady fires on.
    const upgradeAt = Math.floor(Date.now() / 1000) + 3 * 86400;
    behind.state.upgrades.heliconTime = new Date(upgradeAt * 1000).toISOString().replace('.000Z', 'Z');

    const { daemon } = await daemonFor({
      nodes: [
        { name: 'ahead', url: ahead.url },
        { name: 'behind', url: behind.url },
      ],
    });
    await waitUntilAllUp(daemon);
    const text = await scrape(daemon);
    const total = 2000 + 6000 + 1000 + Number(SELF_STAKE);

    // By peer count 1.14.2 leads; by stake 1.14.1 does.
    expect(valueOf(text, 'avax_node_peers_by_version', { node: 'ahead', version: 'avalanchego/1.14.2' })).toBe(2);
    expect(valueOf(text, 'avax_network_stake_by_version_ratio', { node: 'ahead', version: 'avalanchego/1.14.1' })).toBeCloseTo(6000 / total, 9);
    expect(valueOf(text, 'avax_network_stake_by_version_ratio', { node: 'ahead', version: 'avalanchego/1.14.2' })).toBeCloseTo(
      (3000 + Number(SELF_STAKE)) / total,
      9,
    );
    expect(seriesOf(text, 'avax_network_stake_majority_version_info', { node: 'ahead' })).toEqual([
      { labels: { node: 'ahead', version: 'avalanchego/1.14.1' }, value: 1 },
    ]);
    // 1.14.2 is ahead of 1.14.1: not behind (AvaxNodeVersionBehindPeers' string comparison could not tell).
    expect(valueOf(text, 'avax_node_version_behind_stake_majority', { node: 'ahead' })).toBe(0);

    // The node's own stake counts under its own version.
    expect(valueOf(text, 'avax_network_stake_by_version_ratio', { node: 'behind', version: 'avalanchego/1.14.0' })).toBeCloseTo(Number(SELF_STAKE) / total, 9);
    expect(valueOf(text, 'avax_node_version_behind_stake_majority', { node: 'behind' })).toBe(1);
    const seconds = (valueOf(text, 'avax_node_upgrade_timestamp_seconds', { node: 'behind', upgrade: 'helicon' }) ?? 0) - Date.now() / 1000;
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThan(7 * 86400);
    // The shares of a node add up to 1.
    const sum = seriesOf(text, 'avax_network_stake_by_version_ratio', { node: 'behind' }).reduce((a, s) => a + s.value, 0);
    expect(sum).toBeCloseTo(1, 9);
  });

  it('one info.peers per round; the full validator set only in the first round (then every SLOW_REFRESH_ROUNDS)', async () => {
    const node = await fakeNode();
    stakePeers(node);
    const { daemon } = await daemonFor({ nodes: [{ name: 'fake', url: node.url }] });
    await waitUntilAllUp(daemon);
    const fullSet = () => node.calls.filter((c) => c.rpcMethod === 'platform.getCurrentValidators' && JSON.stringify(c.params) === '{}');
    // Fetched once (in round 0, unless a cold start made it miss the deadline), and the stake view is there.
    await eventually(async () => valueOf(await scrape(daemon), 'avax_node_version_behind_stake_majority', { node: 'fake' }) === 0);
    expect(fullSet().length).toBeGreaterThanOrEqual(1);
    await testHandle(daemon).waitForRounds(1);
    node.clearCalls();
    await testHandle(daemon).waitForRounds(3);
    expect(node.calls.filter((c) => c.rpcMethod === 'info.peers')).toHaveLength(3);
    expect(fullSet()).toHaveLength(0);
    // The validators source still asks for the watched id (the node's own) every round.
    expect(node.calls.filter((c) => c.rpcMethod === 'platform.getCurrentValidators')).toHaveLength(3);
  });

  it('nodes of one network share one download of the validator set; another network gets its own', async () => {
    const a = await fakeNode();
    const b = await fakeNode();
    const other = await fakeNode();
    for (const n of [a, b, other]) stakePeers(n);
    other.state.networkId = 5;
    const { daemon } = await daemonFor({
      nodes: [
        { name: 'a', url: a.url },
        { name: 'b', url: b.url },
        { name: 'other', url: other.url },
      ],
    });
    await waitUntilAllUp(daemon);
    await eventually(async () => {
      const text = await scrape(daemon);
      return ['a', 'b', 'other'].every((node) => valueOf(text, 'avax_node_version_behind_stake_majority', { node }) !== undefined);
    });
    const fullSets = (n: FakeNode) => n.calls.filter((c) => c.rpcMethod === 'platform.getCurrentValidators' && JSON.stringify(c.params) === '{}').length;
    expect(fullSets(a) + fullSets(b)).toBe(1);
    expect(fullSets(other)).toBe(1);
    // Both nodes of the first network still have the whole view.
    const text = await scrape(daemon);
    for (const node of ['a', 'b']) expect(seriesOf(text, 'avax_network_stake_by_version_ratio', { node }).length).toBeGreaterThan(0);
  });

  it('a node whose P-Chain API fails still exports its peers, without a stake view', async () => {
    const node = await fakeNode();
    stakePeers(node);
    node.setFault('platform.getCurrentValidators', { kind: 'status', status: 404 });
    const { daemon } = await daemonFor({ nodes: [{ name: 'fake', url: node.url }] });
    await eventually(async () => valueOf(await scrape(daemon), 'avax_source_up', { node: 'fake', source: 'peers' }) === 1);
    const text = await scrape(daemon);
    expect(valueOf(text, 'avax_source_up', { node: 'fake', source: 'peers' })).toBe(1);
    expect(valueOf(text, 'avax_node_peers', { node: 'fake' })).toBe(3);
    expect(seriesOf(text, 'avax_network_stake_by_version_ratio')).toEqual([]);
    expect(seriesOf(text, 'avax_node_version_behind_stake_majority')).toEqual([]);
    // The validators source, which needs that API, is the one that reports the failure.
    expect(valueOf(text, 'avax_source_up', { node: 'fake', source: 'validators' })).toBe(0);
  });
});
