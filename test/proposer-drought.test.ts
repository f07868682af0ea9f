/**
 * Issue #19, point 3: proposer activity beyond the P-Chain. The per-chain
 * node-blocks counting is in data-api-client.test.ts / data-api-e2e.test.ts;
 * here: the watched validator's stake share (its expected share of proposed
 * blocks) from the validator set the peers source already downloads, and the
 * fake Data API's drought validator. The alert (AvaxValidatorProposerDrought)
 * is tested with promtool in alerts/tests/proposer-drought.test.yml.
 */
import { describe, expect, it } from 'vitest';
import { FIXTURE_IDS, fixtureValidatorFor } from './fakes/fake-data.js';
import { stakeSharesOf } from '../src/sources/node/peers/index.js';
import { collectPeers } from '../src/sources/node/peers/collect.js';
import { FAKE_DENIED_NODE_ID, FakeDataApi } from './fakes/fake-data-api.js';
import { FIXTURE_NOW } from './fakes/fake-data.js';
import { perTestResources, scrape, valueOf, waitUntilAllUp } from './helpers/daemon.js';

const AVAX = 1_000_000_000n;
const SELF = FIXTURE_IDS.nodeId;
const PEER_B = 'NodeID-C14fr1n8EYNKyDfYixJ3rxSAVqTY3a8BP';
const NOT_A_VALIDATOR = 'NodeID-111111111111111111116DBWJs';

describe('stake share of a watched validator (pure)', () => {
  const stake = new Map<string, bigint>([
    ['NodeID-A', 3n * AVAX],
    ['NodeID-B', 1n * AVAX],
  ]);

  it("is its weight over the whole set's weight; 0 for an id not in the set; each id once", () => {
    expect(stakeSharesOf(['NodeID-B', 'NodeID-A', 'NodeID-X', 'NodeID-B'], stake)).toEqual([
      { nodeId: 'NodeID-B', ratio: 0.25 },
      { nodeId: 'NodeID-A', ratio: 0.75 },
      { nodeId: 'NodeID-X', ratio: 0 },
    ]);
  });

  it('keeps small shares (a median mainnet validator holds about 1/10,000 of the set) to many digits', () => {
    const big = new Map<string, bigint>([
      ['NodeID-Small', 2_000n * AVAX],
      ['NodeID-Rest', 260_000_000n * AVAX],
    ]);
    const [s] = stakeSharesOf(['NodeID-Small'], big);
    expect(s?.ratio).toBeCloseTo(2_000 / 260_002_000, 12);
  });

  it('an empty set gives no share at all rather than a division by zero', () => {
    expect(stakeSharesOf(['NodeID-A'], new Map())).toEqual([]);
  });

  it('is exported per node and watched id', () => {
    const samples = collectPeers({ numPeers: 0, byVersion: {}, benchedByChain: {}, stakeShares: [{ nodeId: 'NodeID-A', ratio: 0.75 }] }, 'n');
    expect(samples.filter((s) => s.name === 'avax_validator_stake_share_ratio')).toEqual([
      { name: 'avax_validator_stake_share_ratio', labels: { node: 'n', node_id: 'NodeID-A' }, value: 0.75 },
    ]);
  });
});

describe('through the daemon and the fake node', () => {
  const { fakeNode, daemonFor } = perTestResources();

  it("exports each watched id's share of the validator set's weight (own + delegated), the node's own id by default", async () => {
    const node = await fakeNode();
    node.state.primaryValidators.push(fixtureValidatorFor(PEER_B, 5000n * AVAX, 1000n * AVAX), fixtureValidatorFor('NodeID-Other', 1975n * AVAX));
    // The node itself validates with 2,000 AVAX plus a 25 AVAX delegation (fixture); the set is every validator's own + delegated weight.
    const total = node.state.primaryValidators.reduce((a, v) => a + v.weight + v.delegators.reduce((d, x) => d + x.weight, 0n), 0n) / AVAX;
    expect(total).toBeGreaterThan(2025n + 6000n + 1975n - 1n);
    const { daemon } = await daemonFor({ nodes: [{ name: 'w', url: node.url, watch: { node_ids: [SELF, PEER_B, NOT_A_VALIDATOR] } }] });
    await waitUntilAllUp(daemon);
    const text = await scrape(daemon);
    expect(valueOf(text, 'avax_validator_stake_share_ratio', { node: 'w', node_id: SELF })).toBeCloseTo(2025 / Number(total), 12);
    expect(valueOf(text, 'avax_validator_stake_share_ratio', { node: 'w', node_id: PEER_B })).toBeCloseTo(6000 / Number(total), 12);
    expect(valueOf(text, 'avax_validator_stake_share_ratio', { node: 'w', node_id: NOT_A_VALIDATOR })).toBe(0);

    const plain = await fakeNode();
    const { daemon: d2 } = await daemonFor({ nodes: [{ name: 'own', url: plain.url }] });
    await waitUntilAllUp(d2);
    const own = plain.state.primaryValidators.reduce((a, v) => a + v.weight + v.delegators.reduce((d, x) => d + x.weight, 0n), 0n) / AVAX;
    expect(valueOf(await scrape(d2), 'avax_validator_stake_share_ratio', { node: 'own', node_id: SELF })).toBeCloseTo(2025 / Number(own), 12);
  });
});

describe('the fake Data API: node blocks per chain', () => {
  it('serves the C-Chain (one validator proposing, one in a drought) and refuses X with a 400', async () => {
    const api = await FakeDataApi.start();
    try {
      const get = async (path: string) => {
        const r = await fetch(`${api.url}${path}`);
        return { status: r.status, body: (await r.json()) as { blocks?: { blockNumber: string; blockTimestamp: number }[] } };
      };
      const recent = await get(`/v1/networks/mainnet/blockchains/c-chain/nodes/${SELF}/blocks`);
      expect(recent.status).toBe(200);
      expect(recent.body.blocks?.[0]?.blockTimestamp).toBe(FIXTURE_NOW);
      const drought = await get(`/v1/networks/mainnet/blockchains/c-chain/nodes/${FAKE_DENIED_NODE_ID}/blocks`);
      expect(FIXTURE_NOW - (drought.body.blocks?.[0]?.blockTimestamp ?? 0)).toBe(2 * 86_400);
      const added = api.addBlock('c-chain', SELF);
      expect((await get(`/v1/networks/mainnet/blockchains/c-chain/nodes/${SELF}/blocks`)).body.blocks?.[0]?.blockNumber).toBe(added.blockNumber);
      expect((await get(`/v1/networks/mainnet/blockchains/x-chain/nodes/${SELF}/blocks`)).status).toBe(400);
    } finally {
      await api.stop();
    }
  });
});
