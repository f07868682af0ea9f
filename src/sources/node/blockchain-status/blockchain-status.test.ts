import { describe, expect, it } from 'vitest';
import { FakeNode } from '../../../../test/fakes/fake-node.js';
import { defaultFakeState, FIXTURE_IDS, idFrom } from '../../../../test/fakes/fake-data.js';
import { chainSyncing, untrackedSubnet } from '../../../../test/fakes/real-modes.js';
import { collectBlockchainStatus } from './collect.js';
import { blockchainStatusChanges } from './changes.js';
import { perTestResources, scrape, seriesOf, valueOf, waitUntilAllUp, withFakeNode } from '../../../../test/helpers/daemon.js';

const L1 = FIXTURE_IDS.l1SubnetId;
const CHAIN = FIXTURE_IDS.l1ChainId;

async function platform(node: FakeNode, method: string, params: unknown): Promise<{ result?: { status?: string }; error?: { message: string } }> {
  const res = await fetch(`${node.url}/ext/P`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: { status?: string }; error?: { message: string } };
}

/** The status label whose series is 1 for a chain, and how many status series the chain has. */
function statusOf(text: string, node: string, chain: string): { current: string[]; series: number } {
  const all = seriesOf(text, 'avax_node_blockchain_status', { node, chain });
  return { current: all.filter((s) => s.value === 1).map((s) => s.labels['status'] as string), series: all.length };
}

describe('chains a validator validates (platform.getBlockchainStatus)', () => {
  const { daemonFor } = perTestResources();
  const withNode = withFakeNode;

  it('the fake answers as service.go GetBlockchainStatus: Validating, Created for an untracked chain, Unknown for a chain the P-Chain lacks, an error without an id', async () => {
    await withNode(defaultFakeState(), async (node) => {
      expect((await platform(node, 'platform.getBlockchainStatus', { blockchainID: CHAIN })).result?.status).toBe('Validating');
      expect((await platform(node, 'platform.getBlockchainStatus', { blockchainID: idFrom('no-such-chain') })).result?.status).toBe('Unknown');
      expect((await platform(node, 'platform.getBlockchainStatus', {})).error?.message).toBe("argument 'blockchainID' not given");
      untrackedSubnet(node.state, L1);
      expect((await platform(node, 'platform.getBlockchainStatus', { blockchainID: CHAIN })).result?.status).toBe('Created');
    });
  });

  it('a validator of a watched L1 that runs its chain: Validating 1, the other statuses 0, tracks the subnet', async () => {
    await withNode(defaultFakeState(), async (node) => {
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url, watch: { subnet_ids: [L1] } }] });
      await waitUntilAllUp(daemon);
      const text = await scrape(daemon);
      expect(statusOf(text, 'n', CHAIN)).toEqual({ current: ['Validating'], series: 5 });
      expect(valueOf(text, 'avax_node_blockchain_status', { node: 'n', subnet: L1, chain: CHAIN, status: 'Created' })).toBe(0);
      expect(valueOf(text, 'avax_node_tracks_subnet', { node: 'n', subnet: L1 })).toBe(1);
      expect(valueOf(text, 'avax_node_subnet_chains', { node: 'n', subnet: L1 })).toBe(1);
      expect(valueOf(text, 'avax_source_up', { node: 'n', source: 'blockchain_status' })).toBe(1);
      // The VM it runs the chain with (platform.getBlockchains vmID): the plugin it actually runs.
      expect(valueOf(text, 'avax_node_chain_vm_info', { node: 'n', subnet: L1, chain: CHAIN, vm: FIXTURE_IDS.subnetEvmVmId })).toBe(1);
    });
  });

  it('a node that does not track a watched subnet says so: its chain Created, avax_node_tracks_subnet 0, the source up', async () => {
    await withNode(untrackedSubnet(defaultFakeState(), L1), async (node) => {
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url, watch: { subnet_ids: [L1] } }] });
      await waitUntilAllUp(daemon);
      const text = await scrape(daemon);
      expect(statusOf(text, 'n', CHAIN)).toEqual({ current: ['Created'], series: 5 });
      expect(valueOf(text, 'avax_node_tracks_subnet', { node: 'n', subnet: L1 })).toBe(0);
      expect(valueOf(text, 'avax_node_subnet_chains', { node: 'n', subnet: L1 })).toBe(1);
      // A chain it does not run ties no plugin to the subnet, installed or not.
      expect(seriesOf(text, 'avax_node_chain_vm_info', { node: 'n' })).toEqual([]);
    });
  });

  it('a node that runs the chain without validating the subnet: Syncing, and it still tracks the subnet', async () => {
    await withNode(chainSyncing(defaultFakeState(), L1), async (node) => {
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url, watch: { subnet_ids: [L1] } }] });
      await waitUntilAllUp(daemon);
      const text = await scrape(daemon);
      expect(statusOf(text, 'n', CHAIN)).toEqual({ current: ['Syncing'], series: 5 });
      expect(valueOf(text, 'avax_node_tracks_subnet', { node: 'n', subnet: L1 })).toBe(1);
    });
  });

  it('a node without watched subnets is not asked', async () => {
    await withNode(defaultFakeState(), async (node) => {
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url }] });
      await waitUntilAllUp(daemon);
      const text = await scrape(daemon);
      expect(seriesOf(text, 'avax_node_blockchain_status', { node: 'n' })).toEqual([]);
      expect(seriesOf(text, 'avax_source_up', { node: 'n', source: 'blockchain_status' })).toEqual([]);
    });
  });

  it('collector: a watched subnet without chains reads 0 chains and not tracked, rather than nothing', () => {
    const samples = collectBlockchainStatus({ chains: [], subnetChains: { [L1]: [] } }, 'n');
    expect(samples).toEqual([
      { name: 'avax_node_subnet_chains', labels: { node: 'n', subnet: L1 }, value: 0 },
      { name: 'avax_node_tracks_subnet', labels: { node: 'n', subnet: L1 }, value: 0 },
    ]);
  });

  it('changes: a chain that stops Validating is one warning line, back to Validating one info line, a first sight none', () => {
    const v = (status: 'Validating' | 'Created') => ({ chains: [{ subnetId: L1, chain: CHAIN, status }], subnetChains: { [L1]: [CHAIN] } });
    expect(blockchainStatusChanges(undefined, v('Created'))).toEqual([]);
    expect(blockchainStatusChanges(v('Validating'), v('Validating'))).toEqual([]);
    expect(blockchainStatusChanges(v('Validating'), v('Created'))).toEqual([
      { kind: 'blockchain_status', level: 'warn', message: 'chain not validating', detail: { subnet: L1, chain: CHAIN, from: 'Validating', to: 'Created' } },
    ]);
    expect(blockchainStatusChanges(v('Created'), v('Validating'))).toEqual([
      { kind: 'blockchain_status', level: 'info', message: 'chain validating', detail: { subnet: L1, chain: CHAIN, from: 'Created', to: 'Validating' } },
    ]);
  });
});
