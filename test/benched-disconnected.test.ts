/**
 * Issue #7, point 4: who is benched and who is disconnected? Benched peers
 * one by one (capped, with the rest counted), and the validators each chain's
 * health check says the node is not connected to: a count per chain, the
 * connected stake, and the watched ids by name.
 */
import { describe, expect, it } from 'vitest';
import { generatePeers, FIXTURE_IDS, fixtureValidatorFor } from './fakes/fake-data.js';
import { collectHealth } from '../src/sources/node/health/collect.js';
import { collectPeers } from '../src/sources/node/peers/collect.js';
import { chainNetworkingFrom, healthBodySchema, healthValueFrom, type HealthAnswer } from '../src/sources/node/health/index.js';
import { MAX_BENCHED_PEERS, benchedPeersFrom, peersResult, peersValueFrom, watchedBenchedFrom } from '../src/sources/node/peers/index.js';
import type { Sample } from '../src/metrics/metric-defs.js';
import { fixtureResult, loadFixture } from './helpers/fixtures.js';
import { perTestResources, scrape, seriesOf, valueOf, waitUntilAllUp } from './helpers/daemon.js';
import { testHandle } from '../src/daemon.js';

const SELF = FIXTURE_IDS.nodeId;
const L1_CHAIN = FIXTURE_IDS.l1ChainId;
// The two validators every primary chain check of the fixtures lists as disconnected.
const GONE_1 = 'NodeID-2qttvwJUvXYidkULychAeWAjabr2bX9nr';
const GONE_2 = 'NodeID-NSdwQKfN7mYeepf1jKqAHn9o3UjhhVFju';
const BENCHED_PEER = 'NodeID-C14fr1n8EYNKyDfYixJ3rxSAVqTY3a8BP';

function line(s: Sample): string {
  return `${s.name}{${Object.entries(s.labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')}} ${s.value}`;
}

function healthBody(file: string, variant?: string) {
  const body = loadFixture(file, variant).response.body as Record<string, unknown>;
  // The JSON-RPC form wraps the same report in `result`.
  return healthBodySchema.parse('result' in body ? body['result'] : body);
}

describe('benched peers (pure)', () => {
  it("lists the fixture's benched peer with its chain, and says the list is complete", () => {
    const r = peersResult.parse(fixtureResult('node.info.peers.json'));
    const value = { ...peersValueFrom(r), benched: benchedPeersFrom(r.peers ?? [], new Set(), undefined) };
    const lines = collectPeers(value, 'n1').map(line);
    expect(lines).toContain(`avax_node_peer_benched{node="n1",peer_node_id="${BENCHED_PEER}",chain="C"} 1`);
    expect(lines).toContain('avax_node_peers_benched_omitted{node="n1"} 0');
    expect(lines.filter((l) => l.startsWith('avax_node_peer_benched{'))).toHaveLength(1);
    // The per-chain count agrees.
    expect(lines).toContain('avax_node_peers_benched{node="n1",chain="C"} 1');
  });

  it('caps the list: watched ids first, then the heaviest stake, then by node id; the rest are counted', () => {
    const peers = Array.from({ length: MAX_BENCHED_PEERS + 20 }, (_, i) => ({ nodeID: `NodeID-${String(i).padStart(3, '0')}`, benched: ['C', 'P', 'C'] }));
    peers.push({ nodeID: 'NodeID-not-benched', benched: [] });
    const watched = 'NodeID-069'; // last by id: kept only because it is watched
    const heavy = 'NodeID-068'; // kept only for its stake
    const b = benchedPeersFrom(peers, new Set([watched]), new Map([[heavy, 5n]]));
    expect(b.peers).toHaveLength(MAX_BENCHED_PEERS);
    expect(b.omitted).toBe(20);
    expect(b.peers[0]).toEqual({ nodeId: watched, chains: ['C', 'P'] });
    expect(b.peers[1]?.nodeId).toBe(heavy);
    expect(b.peers[2]?.nodeId).toBe('NodeID-000');
    expect(b.peers.map((p) => p.nodeId)).not.toContain('NodeID-067');
    // The same input gives the same list: no series churn from one poll to the next.
    expect(benchedPeersFrom([...peers].reverse(), new Set([watched]), new Map([[heavy, 5n]]))).toEqual(b);
  });

  it('with no benched peer: no per-peer series, omitted 0', () => {
    const b = benchedPeersFrom([{ nodeID: 'NodeID-a', benched: null }, { nodeID: 'NodeID-b' }], new Set(), undefined);
    expect(b).toEqual({ peers: [], omitted: 0 });
  });

  it('counts the chains each watched validator is benched on, 0 when none or not a peer', () => {
    const peers = [
      { nodeID: 'NodeID-a', benched: ['C', 'P', 'C'] },
      { nodeID: 'NodeID-b', benched: [] },
    ];
    const w = watchedBenchedFrom(peers, ['NodeID-a', 'NodeID-b', 'NodeID-not-a-peer', 'NodeID-a']);
    expect(w).toEqual([
      { nodeId: 'NodeID-a', chains: 2 },
      { nodeId: 'NodeID-b', chains: 0 },
      { nodeId: 'NodeID-not-a-peer', chains: 0 },
    ]);
    const lines = collectPeers({ numPeers: 2, byVersion: {}, benchedByChain: {}, benchedWatched: w }, 'n1').map(line);
    expect(lines).toEqual([
      'avax_node_peers{node="n1"} 2',
      'avax_validator_benched_chains{node="n1",node_id="NodeID-a"} 2',
      'avax_validator_benched_chains{node="n1",node_id="NodeID-b"} 0',
      'avax_validator_benched_chains{node="n1",node_id="NodeID-not-a-peer"} 0',
    ]);
  });
});

describe('disconnected validators from the chain health checks (pure)', () => {
  it("reads networking.disconnectedValidators and percentConnected of the fixture's P, X and C checks; other checks have none", () => {
    const n = chainNetworkingFrom(healthBody('node.health.health.json'), [GONE_1, SELF]);
    expect(n.map((c) => c.chain)).toEqual(['C', 'P', 'X']);
    for (const c of n) {
      expect(c.connectedStakeRatio).toBe(0.9987321843);
      expect(c.disconnectedCount).toBe(2);
      expect(c.watched).toEqual([
        { nodeId: GONE_1, disconnected: true },
        { nodeId: SELF, disconnected: false },
      ]);
    }
  });

  it('an L1 chain check is keyed by blockchain id; a check that has not run yet has no details', () => {
    const l1 = chainNetworkingFrom(healthBody('node.health.GET.json', 'tag-filtered-L1-unhealthy-503'), [FIXTURE_IDS.l1InactiveNodeId]);
    expect(l1).toEqual([
      { chain: L1_CHAIN, connectedStakeRatio: 0.4, disconnectedCount: 2, watched: [{ nodeId: FIXTURE_IDS.l1InactiveNodeId, disconnected: true }] },
    ]);
    const booting = chainNetworkingFrom(healthBody('node.health.health.json', 'unhealthy-still-200'), []);
    // X is "not yet run" (no message): only P reports.
    expect(booting).toEqual([{ chain: 'P', connectedStakeRatio: 0.9731, disconnectedCount: 2, watched: [] }]);
  });

  it('an older node without the list still gives the connected stake; a value of an unexpected shape is skipped, not fatal', () => {
    const body = healthBody('node.health.health.json');
    const check = (networking: unknown) => ({ message: { engine: {}, networking }, timestamp: '2026-08-22T15:40:31Z', duration: 1 });
    body.checks['P'] = check({ percentConnected: 0.97 });
    // A percentage where a fraction belongs, a string where a number belongs: that value is dropped, the list is kept.
    body.checks['X'] = check({ percentConnected: '0.97', disconnectedValidators: [GONE_1] });
    body.checks['C'] = check({ percentConnected: 99.8, disconnectedValidators: null });
    body.checks['bls'] = check({ disconnectedValidators: 'NodeID-x' });
    expect(chainNetworkingFrom(body, [GONE_1])).toEqual([
      { chain: 'C', connectedStakeRatio: undefined, disconnectedCount: 0, watched: [{ nodeId: GONE_1, disconnected: false }] },
      { chain: 'P', connectedStakeRatio: 0.97, disconnectedCount: undefined, watched: [] },
      { chain: 'X', connectedStakeRatio: undefined, disconnectedCount: 1, watched: [{ nodeId: GONE_1, disconnected: true }] },
    ]);
  });

  it('the collector exports the connected stake and the count per chain, and each watched id per chain', () => {
    const answer: HealthAnswer = { ok: true, body: healthBody('node.health.health.json') };
    const value = { ...healthValueFrom(answer, answer, answer), networking: chainNetworkingFrom(answer.body, [GONE_2]) };
    const lines = collectHealth(value, 'n1').map(line);
    for (const chain of ['C', 'P', 'X']) {
      expect(lines).toContain(`avax_node_connected_stake_ratio{node="n1",chain="${chain}"} 0.9987321843`);
      expect(lines).toContain(`avax_node_disconnected_validators{node="n1",chain="${chain}"} 2`);
      expect(lines).toContain(`avax_validator_disconnected{node="n1",node_id="${GONE_2}",chain="${chain}"} 1`);
    }
    expect(lines.filter((l) => l.startsWith('avax_validator_disconnected'))).toHaveLength(3);
    // The checks themselves are still all there.
    expect(lines.filter((l) => l.startsWith('avax_node_health_check_passing'))).toHaveLength(10);
  });
});

describe('through the daemon', () => {
  const { fakeNode, daemonFor } = perTestResources();

  it('lists at most 50 benched peers per node, the watched ones first, counts the rest, and drops a peer once it is unbenched', async () => {
    const node = await fakeNode();
    const peers = generatePeers(80, 7);
    for (const p of peers) p.benched = ['C'];
    node.state.peers = peers;
    const byId = [...peers].sort((a, b) => (a.nodeId < b.nodeId ? -1 : 1));
    // By id alone both would be left out: `last` is listed because it is watched, `heavy` for its stake.
    const last = byId.at(-1)?.nodeId ?? '';
    const heavyPeer = byId.at(-2);
    const heavy = heavyPeer?.nodeId ?? '';
    heavyPeer?.benched.push('X');
    node.state.primaryValidators.push(fixtureValidatorFor(heavy, 1_000_000n * 1_000_000_000n));
    const { daemon } = await daemonFor({ nodes: [{ name: 'fake', url: node.url, watch: { node_ids: [last, SELF, GONE_1] } }] });
    await waitUntilAllUp(daemon);
    const text = await scrape(daemon);
    // The watched validators: `last` is benched on C; GONE_1 is not a peer; the node's own id is not reported.
    expect(seriesOf(text, 'avax_validator_benched_chains').map((x) => [x.labels['node_id'], x.value])).toEqual([
      [last, 1],
      [GONE_1, 0],
    ]);
    const listed = new Set(seriesOf(text, 'avax_node_peer_benched', { node: 'fake' }).map((s) => s.labels['peer_node_id']));
    expect(listed.size).toBe(MAX_BENCHED_PEERS);
    expect(valueOf(text, 'avax_node_peers_benched_omitted', { node: 'fake' })).toBe(30);
    expect(valueOf(text, 'avax_node_peers_benched', { node: 'fake', chain: 'C' })).toBe(80);
    expect(valueOf(text, 'avax_node_peer_benched', { node: 'fake', peer_node_id: last, chain: 'C' })).toBe(1);
    expect(valueOf(text, 'avax_node_peer_benched', { node: 'fake', peer_node_id: heavy, chain: 'X' })).toBe(1);

    for (const p of node.state.peers) p.benched = [];
    const back = node.state.peers.find((p) => p.nodeId === last);
    if (back) back.benched = ['P'];
    await testHandle(daemon).waitForRounds(2);
    const after = await scrape(daemon);
    expect(seriesOf(after, 'avax_node_peer_benched')).toEqual([{ labels: { node: 'fake', peer_node_id: last, chain: 'P' }, value: 1 }]);
    expect(valueOf(after, 'avax_node_peers_benched_omitted', { node: 'fake' })).toBe(0);
    expect(valueOf(after, 'avax_validator_benched_chains', { node: 'fake', node_id: last })).toBe(1);
  });

  it('counts the disconnected validators per chain and names the watched ones, following the node as they reconnect', async () => {
    const node = await fakeNode();
    const { daemon } = await daemonFor({ nodes: [{ name: 'fake', url: node.url, watch: { node_ids: [GONE_1, SELF], subnet_ids: [FIXTURE_IDS.l1SubnetId] } }] });
    await waitUntilAllUp(daemon);
    const text = await scrape(daemon);
    for (const chain of ['P', 'X', 'C']) {
      expect(valueOf(text, 'avax_node_disconnected_validators', { node: 'fake', chain })).toBe(2);
      expect(valueOf(text, 'avax_node_connected_stake_ratio', { node: 'fake', chain })).toBe(0.9987321843);
      expect(valueOf(text, 'avax_validator_disconnected', { node: 'fake', node_id: GONE_1, chain })).toBe(1);
    }
    // The node's own id, though watched, is left out: a node is always connected to itself, and that 0 would hide what other nodes see.
    expect(seriesOf(text, 'avax_validator_disconnected', { node_id: SELF })).toEqual([]);
    // The L1 chain check lists nobody.
    expect(valueOf(text, 'avax_node_disconnected_validators', { node: 'fake', chain: L1_CHAIN })).toBe(0);
    expect(valueOf(text, 'avax_validator_disconnected', { node: 'fake', node_id: GONE_1, chain: L1_CHAIN })).toBe(0);
    // Disconnected validators that are not watched are only counted.
    expect(seriesOf(text, 'avax_validator_disconnected', { node_id: GONE_2 })).toEqual([]);

    node.setChainNetworking('P', [GONE_2], 0.9995);
    node.setChainNetworking(L1_CHAIN, [GONE_1, FIXTURE_IDS.l1InactiveNodeId], 0.5);
    await testHandle(daemon).waitForRounds(2);
    const after = await scrape(daemon);
    expect(valueOf(after, 'avax_validator_disconnected', { node: 'fake', node_id: GONE_1, chain: 'P' })).toBe(0);
    expect(valueOf(after, 'avax_node_disconnected_validators', { node: 'fake', chain: 'P' })).toBe(1);
    expect(valueOf(after, 'avax_node_connected_stake_ratio', { node: 'fake', chain: 'P' })).toBe(0.9995);
    expect(valueOf(after, 'avax_validator_disconnected', { node: 'fake', node_id: GONE_1, chain: 'X' })).toBe(1);
    expect(valueOf(after, 'avax_validator_disconnected', { node: 'fake', node_id: GONE_1, chain: L1_CHAIN })).toBe(1);
    expect(valueOf(after, 'avax_node_disconnected_validators', { node: 'fake', chain: L1_CHAIN })).toBe(2);
  });
});
